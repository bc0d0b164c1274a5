import {
  ButtonStyle,
  ComponentType,
  escapeMarkdown,
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIEmbed,
  type APIEmbedField,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord.js';
import { cardHeadline, type ApprovalCard, type CardStatus } from '../../core/chat/gateway.js';

/** What a card's buttons do; the custom id is `postdeck:<action>:<post id>`. */
export type CardButton = 'approve' | 'schedule' | 'edit' | 'reject';

/** A message may carry 10 embeds; each holds one slide, the first also the card itself. */
const MAX_EMBEDS = 10;
/** Characters a message's embeds may hold together (Discord's limit is 6000), with some to spare. */
const EMBED_BUDGET = 5900;

const COLORS: Record<CardStatus, number> = {
  awaiting: 0x5865f2,
  queued: 0xfee75c,
  scheduled: 0x5865f2,
  published: 0x57f287,
  failed: 0xed4245,
  rejected: 0x99aab5,
  gone: 0x99aab5,
};

/** Nobody is pinged by what a card or a reply says (names in captions, history lines). */
export const NO_MENTIONS = { parse: [] };

export function buttonId(action: CardButton, postId: string): string {
  return `postdeck:${action}:${postId}`;
}

/** The action and post of a card button's custom id, or null for anything else. */
export function parseButtonId(customId: string): { action: CardButton; postId: string } | null {
  const match = /^postdeck:(approve|schedule|edit|reject):(.+)$/.exec(customId);
  return match ? { action: match[1] as CardButton, postId: match[2]! } : null;
}

/**
 * The card as a message: the first embed has the headline, caption, details and what happened;
 * every slide is an image in its own embed, all sharing one url so Discord shows them together as
 * a gallery. Buttons only while the draft waits.
 */
export function cardMessage(card: ApprovalCard): RESTPostAPIChannelMessageJSONBody {
  const galleryUrl = card.previews[0]?.url;
  const shown = card.previews.slice(0, MAX_EMBEDS);
  const title = cardHeadline(card);
  const fields = fieldsOf(card);
  // Discord counts 6000 characters across a message's embeds; the caption gives way first.
  const room =
    EMBED_BUDGET - title.length - fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0);
  const main: APIEmbed = {
    title,
    color: COLORS[card.status],
    ...(card.caption ? { description: truncate(escapeMarkdown(card.caption), Math.min(4096, room)) } : {}),
    ...(galleryUrl ? { url: galleryUrl } : {}),
    ...(shown[0] ? { image: { url: shown[0].url } } : {}),
    fields,
  };
  const slides: APIEmbed[] = shown.slice(1).map((preview) => ({ url: galleryUrl, image: { url: preview.url } }));
  return {
    content: '',
    embeds: [main, ...slides],
    components: card.status === 'awaiting' ? [buttons(card.postId)] : [],
    allowed_mentions: NO_MENTIONS,
  };
}

function fieldsOf(card: ApprovalCard): APIEmbedField[] {
  const fields: APIEmbedField[] = [];
  const add = (name: string, value: string, inline = false) => {
    if (value) fields.push({ name, value: truncate(value, 1024), inline });
  };
  if (card.account) {
    add('Account', escapeMarkdown(card.account), true);
    add('Privacy', escapeMarkdown(card.privacy), true);
  }
  add('Created by', escapeMarkdown(card.author), true);
  if (card.previews.length > MAX_EMBEDS) add('Slides', `and ${card.previews.length - MAX_EMBEDS} more slides`);
  if (card.kind === 'video' && card.previews.length > 0) add('Video', 'The image is the video’s poster.');
  add('Music', card.musicNote ? `🎵 ${escapeMarkdown(card.musicNote)}` : '');
  // The newest lines matter most when the history outgrows a field.
  add(
    'History',
    lastLines(
      card.history.map((line) => `• <@${line.chatUserId}> ${escapeMarkdown(line.result)}`),
      1024,
    ),
  );
  if (card.scheduledFor) {
    const seconds = Math.floor(card.scheduledFor.getTime() / 1000);
    add('Publishes', `<t:${seconds}:F> (<t:${seconds}:R>)`);
  }
  if (card.status === 'published') {
    add(
      card.network ? `On ${card.network}` : 'Link',
      card.releaseUrl
        ? `[${card.releaseLabel}](${card.releaseUrl})`
        : `${card.network || 'The network'} has not released the link yet.`,
    );
  }
  if (card.status === 'failed' && card.errorText) add('Error', `⚠️ ${escapeMarkdown(card.errorText)}`);
  return fields;
}

function buttons(postId: string): APIActionRowComponent<APIButtonComponent> {
  const button = (
    action: CardButton,
    label: string,
    style: ButtonStyle.Success | ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Danger,
  ): APIButtonComponent => ({
    type: ComponentType.Button,
    custom_id: buttonId(action, postId),
    label,
    style,
  });
  return {
    type: ComponentType.ActionRow,
    components: [
      button('approve', 'Approve', ButtonStyle.Success),
      button('schedule', 'Schedule', ButtonStyle.Primary),
      button('edit', 'Edit caption', ButtonStyle.Secondary),
      button('reject', 'Reject', ButtonStyle.Danger),
    ],
  };
}

function lastLines(lines: string[], max: number): string {
  const kept: string[] = [];
  let size = 0;
  for (const line of [...lines].reverse()) {
    if (size + line.length + 1 > max) break;
    kept.unshift(line);
    size += line.length + 1;
  }
  return kept.join('\n');
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
