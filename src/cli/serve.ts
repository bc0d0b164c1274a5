import { startPostdeck, type Role } from '../app/main.js';
import { isFreshInstall } from '../core/tenancy/onboarding.js';
import { cliRuntime } from './runtime.js';
import { startMessage } from './start-message.js';

const ROLES: Record<string, Role[]> = { all: ['api', 'worker'], api: ['api'], worker: ['worker'] };

/** `postdeck serve [--role all|api|worker]`: runs until SIGTERM or SIGINT, then shuts down in order. */
export async function serveCommand(role: string): Promise<void> {
  const roles = ROLES[role];
  if (!roles) throw new Error(`--role must be one of ${Object.keys(ROLES).join(', ')}`);
  const { config, logger } = cliRuntime({ logsTo: 'stdout' });
  const app = await startPostdeck(config, logger, new Set(roles));

  if (app.http) {
    logger.info({ url: app.http.url, roles }, 'Postdeck is listening');
    const freshInstall = await isFreshInstall(app.deps);
    process.stderr.write(startMessage({ publicUrl: config.publicUrl, listeningOn: app.http.url, freshInstall }));
  } else {
    logger.info({ roles }, 'Postdeck worker is running');
  }

  let signals = 0;
  const shutdown = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
