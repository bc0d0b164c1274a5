/**
 * The first step of `postdeck serve` (and `npm start`) when dist/ is stale, before bin/dist.js builds
 * it: fails at once when a Postdeck of this DATA_DIR already serves PORT, or the port is taken, so a
 * second start never rebuilds dist/ under a running server. It runs from src/ (through tsx) since
 * dist/ is the stale part; `postdeck serve` makes the same check itself (and holds the lock while it runs).
 */
import { loadConfig } from '../src/config.js';
import { checkNotRunning } from '../src/cli/serve-lock.js';

try {
  await checkNotRunning(loadConfig(process.env));
} catch (error) {
  process.stderr.write(`postdeck: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
