import type { Role } from '../app/main.js';
import { cliRuntime } from './runtime.js';
import { takeServeLock } from './serve-lock.js';
import { startMessage } from './start-message.js';

const ROLES: Record<string, Role[]> = { all: ['api', 'worker'], api: ['api'], worker: ['worker'] };

/**
 * A signal this soon after the first is the same Ctrl-C again: the terminal sends SIGINT to the whole
 * foreground group, and `npm start` forwards its own copy to its child. Only a later one means "now".
 */
const SAME_SIGNAL_MS = 1_000;

/**
 * `postdeck serve [--role all|api|worker]`: runs until SIGTERM or SIGINT, then shuts down in order.
 * Resolves once started, to the address the HTTP roles listen on (none for a worker).
 */
export async function serveCommand(role: string): Promise<{ listeningOn: string | undefined }> {
  const roles = ROLES[role];
  if (!roles) throw new Error(`--role must be one of ${Object.keys(ROLES).join(', ')}`);
  const { config, logger } = cliRuntime({ logsTo: 'stdout' });
  // Before anything is opened: a second start of the same install fails now, not after attaching to its database.
  const releaseLock = roles.includes('api') ? await takeServeLock(config) : () => Promise.resolve();
  // Loaded only now (the whole server, a second or more on a small machine), so that refusal comes first.
  const { startPostdeck } = await import('../app/main.js');
  const { isFreshInstall } = await import('../core/tenancy/onboarding.js');
  const app = await startPostdeck(config, logger, new Set(roles)).catch(async (error: unknown) => {
    await releaseLock();
    throw error;
  });

  if (app.http) {
    logger.info({ url: app.http.url, roles }, 'Postdeck is listening');
    const freshInstall = await isFreshInstall(app.deps);
    process.stderr.write(
      startMessage({
        publicUrl: config.publicUrl,
        listeningOn: app.http.url,
        freshInstall,
        command: config.client.command,
      }),
    );
  } else {
    logger.info({ roles }, 'Postdeck worker is running');
  }

  let firstSignalAt: number | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_MS) return;
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    firstSignalAt = Date.now();
    logger.info({ signal }, 'shutting down');
    // SIGTERM comes from an orchestrator, whose load balancer needs the grace to stop sending here;
    // SIGINT is someone at a terminal, who wants it to stop now.
    app
      .stop({ readyGraceMs: signal === 'SIGTERM' ? config.readyGraceMs : 0 })
      .then(releaseLock)
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return { listeningOn: app.http?.url };
}
