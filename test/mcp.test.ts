// `domainkit mcp` (src/mcp/, docs/client.md "For agents") as a host runs it: the MCP SDK's own client spawns the
// command over stdio against a real mail API and SMTP receiver, lists the tools, makes an inbox, and gets the
// code and the link of mail sent over SMTP. stdout must carry the protocol alone.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN, useMail } from './helpers/mail.ts';

// The command from source, as the other CLI tests run it (bin/domainkit.js runs the build, which may be stale).
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

const t = useMail();

interface Session {
  client: Client;
  /** Errors the client saw on the wire, such as a stdout line that is not a protocol message. */
  wireErrors: Error[];
  stderr: () => string;
}

async function connect(args: string[], env: Record<string, string> = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  const client = new Client({ name: 'domainkit-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (err) => wireErrors.push(err);
  await client.connect(transport);
  return { client, wireErrors, stderr: () => stderr };
}

/** A tool's JSON answer (its text), failing the test with the text when the tool reports an error. */
async function call(session: Session, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await session.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  const parsed = JSON.parse(text) as Record<string, unknown>;
  expect(result.structuredContent).toEqual(parsed);
  return parsed;
}

describe('domainkit mcp --url <mail API>', () => {
  let session: Session;
  beforeAll(async () => {
    session = await connect(['--url', t.mail.url]);
  });
  afterAll(async () => {
    await session?.client.close();
  });

  it('lists its tools, each with an input schema', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['create_inbox', 'list_messages', 'read_message', 'wait_for_code', 'wait_for_link', 'wait_for_message'].sort(),
    );
    const waitForLink = tools.find((tool) => tool.name === 'wait_for_link')!;
    expect(waitForLink.inputSchema.required).toEqual(['address']);
    expect(waitForLink.inputSchema.properties).toHaveProperty('kind');
    expect(session.client.getServerVersion()?.name).toBe('domainkit');
  });

  it('create_inbox, then wait_for_code for a mail sent over SMTP, then read_message and list_messages', async () => {
    const { address } = (await call(session, 'create_inbox', {})) as { address: string };
    expect(address.endsWith(`@${DOMAIN}`)).toBe(true);
    // Sent before the wait: an inbox made by the server is waited on from its beginning.
    await t.mail.send({ from: 'shop@example.org', to: address, subject: 'Your code', text: 'Your verification code is 582046.' });
    const code = await call(session, 'wait_for_code', { address, timeout_seconds: 20 });
    expect(code).toMatchObject({ code: '582046', subject: 'Your code', from: 'shop@example.org' });

    const message = await call(session, 'read_message', { id: code.message_id });
    expect(message).toMatchObject({ to: address, otp: '582046', body_format: 'text' });
    expect(message.body).toContain('582046');
    const list = (await call(session, 'list_messages', { address })) as { messages: { id: string }[] };
    expect(list.messages.map((m) => m.id)).toEqual([code.message_id]);
  });

  it('wait_for_link with a kind, for a mail sent after the call', async () => {
    const { address } = (await call(session, 'create_inbox', {})) as { address: string };
    const waiting = call(session, 'wait_for_link', { address, kind: 'reset', timeout_seconds: 20 });
    await t.mail.send({
      from: 'accounts@example.org',
      to: address,
      subject: 'Reset your password',
      html: '<p>Someone asked to reset your password.</p><p><a href="https://app.example.org/password/reset?t=xyz">Reset password</a></p>',
    });
    expect(await waiting).toMatchObject({
      url: 'https://app.example.org/password/reset?t=xyz',
      kind: 'reset',
      subject: 'Reset your password',
    });
  });

  it('a wait with nothing to find is a tool error that says how to resume; an unknown inbox is the API problem', async () => {
    const { address } = (await call(session, 'create_inbox', {})) as { address: string };
    const timedOut = (await session.client.callTool({
      name: 'wait_for_message',
      arguments: { address, timeout_seconds: 1 },
    })) as CallToolResult;
    expect(timedOut.isError).toBe(true);
    expect(timedOut.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(`No matching message arrived in ${address}`) });
    expect(timedOut.content[0]).toMatchObject({ text: expect.stringContaining('after=00000000-0000-0000-0000-000000000000') });

    const unknown = (await session.client.callTool({
      name: 'list_messages',
      arguments: { address: `nobody@${DOMAIN}` },
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]).toMatchObject({ text: expect.stringContaining('404 not_found') });
  });

  it('wrote nothing but protocol messages to stdout, and said where it serves on stderr', () => {
    expect(session.wireErrors).toEqual([]);
    expect(session.stderr()).toContain(`serving the mail API at ${t.mail.url}`);
  });
});

describe('domainkit mcp settings', () => {
  it('takes the mail API from DOMAINKIT_MAIL_URL', async () => {
    const session = await connect([], { DOMAINKIT_MAIL_URL: t.mail.url });
    try {
      const { address } = (await call(session, 'create_inbox', { local_part: 'from-env' })) as { address: string };
      expect(address).toBe(`from-env@${DOMAIN}`);
    } finally {
      await session.client.close();
    }
  });

  it('every stdout line is a JSON-RPC message, from the first byte', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--url', t.mail.url], { env: { PATH: process.env.PATH } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    await expect.poll(() => stdout.includes('\n')).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end(); // the host closing stdin ends the server
    expect(await exited).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: 'domainkit' } } });
  });
});
