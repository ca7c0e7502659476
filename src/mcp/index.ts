// `domainkit mcp`: a Model Context Protocol server over stdio for agents, on top of `domainkit/client` (it knows
// the mail API only through that client, so it can run wherever the API can be reached). stdout carries the
// protocol alone; anything said to people goes to stderr.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MailClient } from '../client/index.ts';
import { registerTools } from './tools.ts';

export interface McpOptions {
  /** The mail API's base address. */
  url: string;
  apiKey?: string;
  /** The program's version, told to the host. */
  version: string;
}

export const DEFAULT_MAIL_URL = 'http://localhost:8081';

export async function runMcpServer(options: McpOptions): Promise<void> {
  const client = new MailClient({ baseUrl: options.url, apiKey: options.apiKey });
  const server = new McpServer(
    { name: 'domainkit', version: options.version },
    {
      instructions:
        'Disposable inboxes for testing sign-ups and logins: create_inbox gives an address; after something mails it, ' +
        'wait_for_code or wait_for_link returns the one-time code or the link of a kind (verify, magic_link, reset, ' +
        'unsubscribe, invite) in one call. Waits on an inbox made here see mail that arrived before the call too; later ' +
        'waits on an inbox return only messages newer than the last one returned.',
    },
  );
  registerTools(server, client, options.url);
  const transport = new StdioServerTransport();
  // The host ends the session by closing stdin: stop then, even with a wait still out.
  const stop = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(transport);
  process.stderr.write(`domainkit mcp: serving the mail API at ${options.url} over stdio\n`);
}
