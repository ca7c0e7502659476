// One pino logger for the process. Credentials must never reach a log line, whatever object is logged.
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Paths whose values are replaced before a line is written (pino's fast-redact syntax). */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.password',
  '*.token',
  '*.secret',
  '*.webhook_secret',
  '*.webhookSecret',
  '*.plaintext',
  '*.keyHash',
  '*.apiKey',
  '*.secretKey',
  '*.databaseUrl',
  '*.jwtSecret',
];

export function createLogger(options: { level: string; name?: string }, destination?: DestinationStream): Logger {
  return pino(
    {
      level: options.level,
      ...(options.name ? { name: options.name } : {}),
      redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    },
    destination,
  );
}
