import { loadConfig } from '../config.js';
import { DEFAULT_HEARTBEAT_MAX_AGE_MS, workerHealth } from '../app/worker-heartbeat.js';

/**
 * `postdeck admin worker-health [--max-age-ms N]`: exits 0 when this host's worker wrote its
 * heartbeat (after a database ping) within N ms and still runs, 1 otherwise. The worker serves no
 * HTTP, so this is its container health check; it reads one file and opens no database connection.
 */
export function workerHealthCommand(flags: { maxAgeMs?: string }): void {
  const maxAgeMs = flags.maxAgeMs === undefined ? DEFAULT_HEARTBEAT_MAX_AGE_MS : Number(flags.maxAgeMs);
  if (!Number.isInteger(maxAgeMs) || maxAgeMs <= 0) throw new Error('--max-age-ms must be a positive whole number');
  const health = workerHealth(loadConfig(process.env).dataDir, maxAgeMs);
  if ('problem' in health) throw new Error(`worker unhealthy: ${health.problem}`);
  process.stdout.write(
    `worker healthy: pid ${health.heartbeat.pid} on ${health.heartbeat.host}, last beat ${Math.round(health.ageMs / 1000)} s ago\n`,
  );
}
