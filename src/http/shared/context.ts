import type { ParameterizedContext } from 'koa';
import type { Scope } from '../../core/context.js';

/** Per-request state the middleware fills in. */
export interface AppState {
  requestId: string;
  scope?: Scope;
}

export type AppContext = ParameterizedContext<AppState>;
