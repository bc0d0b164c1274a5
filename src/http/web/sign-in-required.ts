/**
 * Thrown when a page needs a signed-in user; the pages' error handler (web-errors.ts) renders it
 * as a redirect to /signin?next=. Its own module so that what throws it (the session) and what
 * renders it (the error handler, which renders through the layout) do not import each other.
 */
export class SignInRequired extends Error {
  override readonly name = 'SignInRequired';

  constructor(readonly next: string) {
    super('Sign in required');
  }
}
