import { actionButton, channelPage, escapeHtml } from '../shared/channel-page.js';
import { LOADING } from './responses.js';
import { EPHEMERAL, type DiscordEmulatorState, type EmulatedMessage } from './state.js';

interface Embed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  fields?: { name: string; value: string; inline?: boolean }[];
  image?: { url: string };
  footer?: { text: string };
}
interface Component {
  type: number;
  label?: string;
  style?: number;
  url?: string;
  custom_id?: string;
  components?: Component[];
}

/** Names to draw mentions with: people and channels by id. */
type Names = { people: ReadonlyMap<string, string>; channels: ReadonlyMap<string, string> };

const BUTTON_STYLES: Record<number, string> = { 1: 'primary', 2: 'secondary', 3: 'success', 4: 'danger', 5: 'link' };

/**
 * A channel as a Discord client would roughly draw it: content, embeds (colour bar, title,
 * description, fields, images; embeds sharing a url drawn as one gallery, as Discord does) and
 * buttons; replies under what they answer. With `viewer`, also the ephemeral messages only that
 * person sees, and a message box for slash commands. Not Discord's own rendering: an aid for
 * review and trials.
 */
export function renderChannel(state: DiscordEmulatorState, channelId: string, viewer: string | null): string {
  const name = state.channelNames.get(channelId) ?? channelId;
  return channelPage({
    title: `#${name}`,
    heading: `# ${escapeHtml(name)} <small>Discord emulator</small>`,
    css: CSS,
    messages: renderMessages(state, channelId, viewer),
    interactive: viewer !== null,
    placeholder: `Message #${name} (try /postdeck help)`,
  });
}

/** What `viewer` sees in the channel (without a viewer: what everyone sees), replies under what they answer. */
export function renderMessages(state: DiscordEmulatorState, channelId: string, viewer: string | null): string {
  const shown = state.messages.filter(
    (message) =>
      message.channelId === channelId &&
      !message.deleted &&
      ((message.flags & EPHEMERAL) === 0 ||
        (viewer !== null && state.interactions.get(message.interactionId ?? '')?.userId === viewer)),
  );
  const top = shown.filter((message) => message.replyTo === null);
  return top
    .map((message) => {
      const replies = shown.filter((each) => each.replyTo === message.id);
      const thread = replies.map((r) => `<div class="reply">${renderMessage(state, r)}</div>`).join('');
      const ephemeral = (message.flags & EPHEMERAL) !== 0 ? ' class="private"' : '';
      return `<article${ephemeral}>${renderMessage(state, message)}${thread}</article>`;
    })
    .join('');
}

function renderMessage(state: DiscordEmulatorState, message: EmulatedMessage): string {
  const names = { people: state.people, channels: state.channelNames };
  const embeds = message.embeds as Embed[];
  const first = embeds[0];
  // Embeds after the first that share its url only add their image to its gallery.
  const gallery = embeds.filter((embed, i) => embed.image && (i === 0 || (first?.url && embed.url === first.url)));
  const rest = embeds.slice(1).filter((embed) => !(first?.url && embed.url === first.url));
  const edited = message.edits.length > 0 ? ' <span class="edited">(edited)</span>' : '';
  const typed = state.typedCommands.get(message.interactionId ?? '');
  const only = (message.flags & EPHEMERAL) !== 0 ? ' <span class="private-label">Only you can see this</span>' : '';
  const thinking = (message.flags & LOADING) !== 0 ? '<p class="thinking">Postdeck is thinking…</p>' : '';
  return [
    typed ? `<div class="private-label">You used <code>${escapeHtml(typed)}</code></div>` : '',
    `<div class="author">Postdeck <span class="app">APP</span>${edited}${only}</div>`,
    thinking,
    message.content ? `<p>${markdown(message.content, names)}</p>` : '',
    first ? renderEmbed(first, gallery, names) : '',
    ...rest.map((embed) => renderEmbed(embed, embed.image ? [embed] : [], names)),
    renderComponents(message.id, message.components as Component[]),
  ].join('');
}

function renderEmbed(embed: Embed, images: Embed[], names: Names): string {
  const colour = `#${(embed.color ?? 0x202225).toString(16).padStart(6, '0')}`;
  const fields = (embed.fields ?? [])
    .map(
      (field) =>
        `<div class="field${field.inline ? ' inline' : ''}"><b>${escapeHtml(field.name)}</b><div>${markdown(field.value, names)}</div></div>`,
    )
    .join('');
  const pictures = images.map((each) => `<img src="${escapeHtml(each.image!.url)}" alt="">`).join('');
  return `<div class="embed" style="border-left-color:${colour}">${embed.title ? `<h2>${escapeHtml(embed.title)}</h2>` : ''}${embed.description ? `<p>${markdown(embed.description, names)}</p>` : ''}<div class="fields">${fields}</div>${pictures ? `<div class="gallery">${pictures}</div>` : ''}${embed.footer ? `<small>${escapeHtml(embed.footer.text)}</small>` : ''}</div>`;
}

function renderComponents(messageId: string, rows: Component[]): string {
  return rows
    .map((row) => {
      const buttons = (row.components ?? []).filter((each) => each.type === 2);
      const drawn = buttons.map((button) => {
        const className = BUTTON_STYLES[button.style ?? 2] ?? 'secondary';
        const label = button.label ?? '';
        if (button.url) {
          return `<a class="button ${className}" href="${escapeHtml(button.url)}" target="_blank" rel="noopener">${escapeHtml(label)}</a>`;
        }
        return actionButton({ label, className, messageId, actionId: button.custom_id ?? '' });
      });
      return `<div class="actions">${drawn.join('')}</div>`;
    })
    .join('');
}

/** Discord markdown an app sends: **bold**, *italic*, `code`, [label](url), <@id>, <t:unix:style>, \escapes. */
function markdown(source: string, names: Names): string {
  return escapeHtml(source)
    .replace(
      /&lt;t:(\d+)(?::[a-zA-Z])?&gt;/g,
      (_m, seconds: string) => `<time>${new Date(Number(seconds) * 1000).toISOString().replace('.000Z', 'Z')}</time>`,
    )
    .replace(
      /&lt;@!?(\d+)&gt;/g,
      (_m, id: string) => `<b class="mention">@${escapeHtml(names.people.get(id) ?? id)}</b>`,
    )
    .replace(
      /&lt;#(\d+)&gt;/g,
      (_m, id: string) => `<b class="mention">#${escapeHtml(names.channels.get(id) ?? id)}</b>`,
    )
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, (_m, label: string, url: string) => `<a href="${url}">${label}</a>`)
    .replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>')
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\\([\\*_`~|>#[\]()-])/g, '$1')
    .replace(/\n/g, '<br>');
}

const CSS = `
body { font: 15px/1.375 "gg sans", "Noto Sans", "Helvetica Neue", Arial, sans-serif; background: #313338; color: #dbdee1; margin: 0 auto; max-width: 760px; padding: 16px; }
h1 { font-size: 18px; color: #f2f3f5; border-bottom: 1px solid #3f4147; padding-bottom: 8px; } h1 small { color: #949ba4; font-weight: normal; font-size: 12px; }
article { padding: 12px 0; border-bottom: 1px solid #3f4147; }
.author { color: #f2f3f5; font-weight: 600; } .app { background: #5865f2; color: #fff; font-size: 10px; padding: 1px 4px; border-radius: 3px; }
.edited { color: #949ba4; font-size: 11px; font-weight: normal; }
.embed { background: #2b2d31; border-left: 4px solid; border-radius: 4px; padding: 8px 16px 16px 12px; margin: 6px 0; max-width: 520px; }
.embed h2 { font-size: 16px; color: #f2f3f5; margin: 8px 0 4px; } .embed p { margin: 4px 0 8px; }
.fields { display: flex; flex-wrap: wrap; gap: 8px 16px; } .field { flex: 1 1 100%; font-size: 14px; } .field.inline { flex: 1 1 28%; }
.field b { color: #f2f3f5; font-size: 13px; }
.gallery { display: grid; grid-template-columns: repeat(2, 1fr); gap: 4px; margin-top: 12px; max-width: 400px; }
.gallery img { width: 100%; height: 220px; object-fit: cover; border-radius: 4px; }
.actions button, .actions a.button { font: inherit; font-size: 14px; color: #fff; border: 0; border-radius: 3px; padding: 6px 16px; margin: 8px 8px 0 0; }
.actions a.button { display: inline-block; text-decoration: none; }
.thinking { color: #949ba4; font-style: italic; }
.primary, .modal .primary { background: #5865f2; border-color: #5865f2; } .secondary { background: #4e5058; } .success { background: #248046; } .danger { background: #da373c; } .link { background: #4e5058; }
.mention { background: rgba(88,101,242,.3); color: #c9cdfb; font-weight: 500; } a { color: #00a8fc; } code { background: #1e1f22; padding: 0 3px; border-radius: 3px; }
.reply { margin: 8px 0 0 24px; padding-left: 12px; border-left: 2px solid #4e5058; }
`;
