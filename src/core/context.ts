import type { Logger } from '../logger.js';
import type { Collections } from './db/collections.js';
import type { PlanTable } from './plans.js';

/** What every use case may use: the collections, the plan table, a logger and the clock. */
export interface CoreDeps {
  readonly db: Collections;
  readonly plans: PlanTable;
  readonly logger: Logger;
  readonly now: () => Date;
}

/** Who is acting: an API key, a signed-in user, or the system itself (jobs, CLI). */
export type Actor =
  | { readonly type: 'api_key'; readonly keyId: string; readonly userId: string | null }
  | { readonly type: 'user'; readonly userId: string }
  | { readonly type: 'system' };

/** The neutral request context every adapter builds; every query is scoped by it. */
export interface Scope {
  readonly workspaceId: string;
  readonly accountId: string;
  readonly actor: Actor;
}
