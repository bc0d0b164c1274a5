import type { CoreDeps } from '../../core/context.js';
import type { Logger } from '../../logger.js';

/** What the web pages need from the composition root. */
export interface WebOptions {
  deps: CoreDeps;
  logger: Logger;
  /** Where the server is reached from outside: invite links and the CSRF origin check use it. */
  publicUrl: string;
  bodyLimitBytes: number;
  /** Whether anyone may sign up with an account of their own (otherwise invitation only). */
  openSignup: boolean;
  /** Whether cookies carry the Secure flag: on when the public URL is https. */
  secureCookies: boolean;
}
