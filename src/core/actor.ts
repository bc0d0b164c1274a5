// Kept apart from context.ts so stored documents can name an actor without importing the deps.
/** Who is acting: an API key, a signed-in user, or the system itself (jobs, CLI). */
export type Actor =
  | { readonly type: 'api_key'; readonly keyId: string; readonly userId: string | null }
  | { readonly type: 'user'; readonly userId: string }
  | { readonly type: 'system' };
