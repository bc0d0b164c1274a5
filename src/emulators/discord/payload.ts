import type { DiscordEmulatorState, EmulatedMessage } from './state.js';

type Json = Record<string, unknown>;

/** Who uses an interaction, and where. */
export interface DiscordUser {
  id: string;
  username: string;
  /** The server the interaction happens in; none for a direct message. */
  guildId: string | null;
  channelId: string;
}

/** The permissions Discord reports for the member and the app (a member with the usual server rights). */
const PERMISSIONS = '2248473465835073';

/**
 * An interaction as Discord POSTs it to an app: ids, a fresh token, the member (in a server) or
 * user (in a direct message), the channel, the message a component sits on, and the fields
 * discord.js and Discord's docs list as always present (entitlements, app_permissions, locale...).
 * A PING carries only who it is for.
 */
export function interactionPayload(
  state: DiscordEmulatorState,
  input: { type: number; who: DiscordUser | null; data: Json; message: EmulatedMessage | null },
): Json {
  const { type, who, data, message } = input;
  const id = state.snowflake();
  const token = state.newInteractionToken();
  if (type === 1) return { id, application_id: state.application.id, type, token, version: 1 };
  const user = who && { id: who.id, username: who.username, global_name: who.username, discriminator: '0' };
  const channelId = who?.channelId ?? message?.channelId ?? state.snowflake();
  return {
    id,
    application_id: state.application.id,
    type,
    token,
    version: 1,
    data,
    ...(who?.guildId
      ? {
          guild_id: who.guildId,
          guild: { id: who.guildId, locale: 'en-US', features: [] },
          member: { user, roles: [], permissions: PERMISSIONS, nick: null, joined_at: '2025-01-01T00:00:00Z' },
        }
      : user
        ? { user }
        : {}),
    channel_id: channelId,
    channel: { id: channelId, type: who?.guildId ? 0 : 1 },
    ...(message
      ? {
          message: {
            id: message.id,
            channel_id: message.channelId,
            content: message.content,
            embeds: message.embeds,
            components: message.components,
            flags: message.flags,
          },
        }
      : {}),
    app_permissions: PERMISSIONS,
    locale: 'en-US',
    ...(who?.guildId ? { guild_locale: 'en-US' } : {}),
    entitlements: [],
    authorizing_integration_owners: { '0': who?.guildId ?? '0' },
    context: who?.guildId ? 0 : 1,
    attachment_size_limit: 10_485_760,
  };
}
