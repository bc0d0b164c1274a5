import { loadConfig, ConfigError, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { pino } from 'pino';
import pretty from 'pino-pretty';

/** Loads config and a logger for a CLI command; admin commands log to stderr so stdout stays clean. */
export function cliRuntime(options: { logsTo: 'stdout' | 'stderr'; level?: string }): {
  config: Config;
  logger: Logger;
} {
  const config = loadConfig(process.env);
  const fd = options.logsTo === 'stderr' ? 2 : 1;
  const terminal = (fd === 1 ? process.stdout : process.stderr).isTTY;
  const readable = config.logFormat === 'pretty' || (config.logFormat === 'auto' && terminal);
  // A person at a terminal reads lines; collectors and pipes get JSON.
  const destination = readable
    ? pretty({ destination: fd, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,app', colorize: terminal })
    : pino.destination(fd);
  return { config, logger: createLogger({ level: options.level ?? config.logLevel, destination }) };
}

/** Prints a failure a person can act on and sets a failing exit code. */
export function reportCliError(error: unknown): void {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`postdeck: ${message}\n`);
  process.exitCode = 1;
}
