import { loadConfig, ConfigError, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { pino } from 'pino';

/** Loads config and a logger for a CLI command; admin commands log to stderr so stdout stays clean. */
export function cliRuntime(options: { logsTo: 'stdout' | 'stderr'; level?: string }): {
  config: Config;
  logger: Logger;
} {
  const config = loadConfig(process.env);
  const destination = options.logsTo === 'stderr' ? pino.destination(2) : pino.destination(1);
  return { config, logger: createLogger({ level: options.level ?? config.logLevel, destination }) };
}

/** Prints a failure a person can act on and sets a failing exit code. */
export function reportCliError(error: unknown): void {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`postdeck: ${message}\n`);
  process.exitCode = 1;
}
