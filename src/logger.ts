import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths pino blanks out wherever they appear, so no secret reaches a log line. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.device_code',
  '*.secret',
];

/** Builds the process logger: JSON lines on stdout (or `destination`), secrets redacted. */
export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    { level: options.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { app: 'postdeck' } },
    options.destination ?? pino.destination(1),
  );
}
