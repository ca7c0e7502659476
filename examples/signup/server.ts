// A tiny sign-up site to test end to end: a form takes an email address, the site mails a 6-digit code to it over
// SMTP, a second form takes the code, and a success page follows. No framework: node:http and nodemailer.
// Run it against a running domainkit: `node examples/signup/server.ts` (README.md beside this file).
import { randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';

export interface SignupOptions {
  /** Where the site mails its codes: domainkit's SMTP receiver. */
  smtp: { host: string; port: number };
  /** The site's port (0: any free one). */
  port?: number;
  host?: string;
}

export interface SignupServer {
  url: string;
  close(): Promise<void>;
}

export async function startSignupServer(options: SignupOptions): Promise<SignupServer> {
  const transport = nodemailer.createTransport({ host: options.smtp.host, port: options.smtp.port, secure: false, ignoreTLS: true });
  /** email → the code mailed to it. */
  const pending = new Map<string, string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://site');
    if (req.method === 'GET' && url.pathname === '/') return page(res, 200, 'Sign up', signupForm());
    if (req.method === 'POST' && url.pathname === '/signup') {
      const email = (await form(req)).get('email')?.trim().toLowerCase() ?? '';
      if (!/^[^@\s]+@[^@\s]+$/.test(email))
        return page(res, 400, 'Sign up', `<p role="alert">Please give an email address.</p>${signupForm()}`);
      const code = String(randomInt(100_000, 1_000_000));
      pending.set(email, code);
      await transport.sendMail({
        from: 'Example Shop <no-reply@shop.example>',
        to: email,
        subject: 'Your Example Shop sign-up code',
        text: `Welcome to Example Shop!\n\nYour verification code is ${code}. It expires in 10 minutes.\n`,
        html: `<p>Welcome to Example Shop!</p><p>Your verification code is <strong>${code}</strong>. It expires in 10 minutes.</p>`,
      });
      res.writeHead(303, { location: `/verify?email=${encodeURIComponent(email)}` }).end();
      return;
    }
    if (req.method === 'GET' && url.pathname === '/verify')
      return page(res, 200, 'Check your mail', verifyForm(url.searchParams.get('email') ?? ''));
    if (req.method === 'POST' && url.pathname === '/verify') {
      const fields = await form(req);
      const email = fields.get('email') ?? '';
      const expected = pending.get(email);
      if (expected === undefined || fields.get('code')?.trim() !== expected) {
        return page(res, 400, 'Check your mail', `<p role="alert">That code is not right.</p>${verifyForm(email)}`);
      }
      pending.delete(email);
      return page(res, 200, 'Welcome', `<p>Your account <strong>${escapeHtml(email)}</strong> is confirmed.</p>`);
    }
    page(res, 404, 'Not found', '<p>There is no such page.</p>');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      process.stderr.write(`signup example: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!res.headersSent) page(res, 500, 'Something went wrong', '<p>The code could not be sent.</p>');
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    async close() {
      transport.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const signupForm = () => `<form method="post" action="/signup">
  <label>Email <input type="email" name="email" autocomplete="email" required></label>
  <button type="submit">Sign up</button>
</form>`;

const verifyForm = (email: string) => `<p>We sent a 6-digit code to <strong>${escapeHtml(email)}</strong>.</p>
<form method="post" action="/verify">
  <input type="hidden" name="email" value="${escapeHtml(email)}">
  <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required></label>
  <button type="submit">Verify</button>
</form>`;

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Example Shop</title></head>
<body><main><h1>${title}</h1>${body}</main></body></html>`);
}

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 10_000) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// `node examples/signup/server.ts`: the site on SIGNUP_PORT, mailing through SMTP_HOST:SMTP_PORT.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const site = await startSignupServer({
    port: Number(process.env.SIGNUP_PORT ?? 3000),
    host: process.env.SIGNUP_HOST ?? '127.0.0.1',
    smtp: { host: process.env.SMTP_HOST ?? '127.0.0.1', port: Number(process.env.SMTP_PORT ?? 2525) },
  });
  process.stdout.write(`sign-up example at ${site.url}\n`);
}
