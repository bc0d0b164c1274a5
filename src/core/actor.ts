// Kept apart from context.ts so stored documents can name an actor without importing the deps.
/** Who is acting: an API key, a signed-in user, or the system itself (jobs, CLI). */
export type Actor =
  | { readonly type: 'api_key'; readonly keyId: string; readonly userId: string | null }
  | { readonly type: 'user'; readonly userId: string }
  | { readonly type: 'system' };

export const SURFACES = ['rest', 'mcp', 'slack', 'discord', 'web', 'cli', 'system'] as const;
/** Through which surface a change came (the audit trail names it). */
export type Surface = (typeof SURFACES)[number];

/** The person in a chat workspace who clicked: the link's key acts, this names who asked it to. */
export interface ChatUser {
  readonly platform: 'slack' | 'discord';
  readonly id: string;
  readonly name: string;
}

/**
 * Who asked for something the system carries out later (a post the engine publishes): kept on the
 * post so the audit entry of the outcome names the key or person, the surface and the chat user.
 */
export interface Requester {
  readonly actor: Actor;
  readonly surface: Surface;
  readonly chatUser?: ChatUser;
}
