// The SMTP receiver. Until inboxes exist (the mail core issue) it is an honest receiver with no mailboxes:
// it refuses other domains as a relay would be refused, and every address of ours as unknown.
import { SMTPServer } from 'smtp-server';
import type { Logger } from '../../platform/log.ts';

export interface SmtpOptions {
  domains: string[];
  maxMessageBytes: number;
  log: Logger;
}

export function createSmtpServer(options: SmtpOptions): SMTPServer {
  const domains = new Set(options.domains);
  return new SMTPServer({
    name: options.domains[0] ?? 'localhost',
    banner: 'domainkit',
    size: options.maxMessageBytes,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const domain = address.address.split('@').pop()?.toLowerCase() ?? '';
      const error = new Error(
        domains.has(domain) ? '5.1.1 No such inbox here' : '5.7.1 Relaying denied: not a domain of this server',
      ) as Error & { responseCode: number };
      error.responseCode = 550;
      callback(error);
    },
  });
}
