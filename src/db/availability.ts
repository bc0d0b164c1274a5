import type { MongoClient, TopologyDescriptionChangedEvent } from 'mongodb';
import type { Logger } from '../logger.js';

/** While the database stays away, how often the log says so again. */
export const STILL_UNREACHABLE_EVERY_MS = 30_000;

/**
 * The one place a process says its database went away: a warning when the driver loses every
 * server, one every STILL_UNREACHABLE_EVERY_MS while none answers, and an info line when one does
 * again. The queries that fail meanwhile log at debug (logFailure in src/core/db/unreachable.ts).
 * Driven by the driver's own server monitoring, so it sees an outage even in an idle process.
 */
export function watchDatabaseAvailability(
  client: MongoClient,
  logger: Logger,
  remindEveryMs = STILL_UNREACHABLE_EVERY_MS,
): { stop(): void } {
  let downSince: number | undefined;
  let reminder: NodeJS.Timeout | undefined;
  const onChange = (event: TopologyDescriptionChangedEvent) => {
    const servers = [...event.newDescription.servers.values()];
    const reachable = servers.some((server) => server.type !== 'Unknown');
    if (!reachable && downSince === undefined) {
      downSince = Date.now();
      const reason = servers.find((server) => server.error)?.error?.message ?? 'no server answers';
      logger.warn({ reason }, 'database unreachable; work that needs it waits and retries');
      reminder = setInterval(() => {
        logger.warn({ downForMs: Date.now() - (downSince ?? Date.now()) }, 'database still unreachable');
      }, remindEveryMs).unref();
    } else if (reachable && downSince !== undefined) {
      clearInterval(reminder);
      logger.info({ downForMs: Date.now() - downSince }, 'database reachable again');
      downSince = undefined;
    }
  };
  client.on('topologyDescriptionChanged', onChange);
  return {
    stop() {
      clearInterval(reminder);
      client.off('topologyDescriptionChanged', onChange);
    },
  };
}
