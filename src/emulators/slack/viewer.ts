import { actionButton, channelPage, escapeHtml } from '../shared/channel-page.js';
import type { EmulatedMessage, PrivateNote, SlackEmulatorState } from './state.js';

type Block = Record<string, unknown>;
/** Names to draw mentions with: people and channels by id. */
type Names = { people: ReadonlyMap<string, string>; channels: ReadonlyMap<string, string> };

/**
 * A channel as a Slack client would roughly draw it (Block Kit: header, section, image, context,
 * actions), so a person can look at what an app posted; with `viewer`, also what only that person
 * sees, and a message box for slash commands. Not Slack's own rendering: an aid for review and trials.
 */
export function renderChannel(state: SlackEmulatorState, channel: string, viewer: string | null): string {
  const name = state.channelNames.get(channel) ?? channel;
  return channelPage({
    title: `#${name}`,
    heading: `# ${escapeHtml(name)} <small>Slack emulator</small>`,
    css: CSS,
    messages: renderMessages(state, channel, viewer),
    interactive: viewer !== null,
    placeholder: `Message #${name} (try /postdeck help)`,
  });
}

/** The channel's messages with their threads, and the viewer's private notes, in the order they came. */
export function renderMessages(state: SlackEmulatorState, channel: string, viewer: string | null): string {
  const names = { people: state.people, channels: state.channelNames };
  const messages = state.channel(channel);
  const notes = viewer ? state.notes.filter((note) => note.channel === channel && note.user === viewer) : [];
  const items: { ts: string; html: string }[] = [
    ...messages
      .filter((message) => message.threadTs === null)
      .map((message) => {
        const replies = messages.filter((each) => each.threadTs === message.ts);
        const thread = replies.map((reply) => `<div class="reply">${renderMessage(reply, names)}</div>`).join('');
        return { ts: message.ts, html: `<article>${renderMessage(message, names)}${thread}</article>` };
      }),
    ...notes.map((note) => ({ ts: note.ts, html: renderNote(note, names) })),
  ];
  return items
    .sort((a, b) => Number(a.ts) - Number(b.ts))
    .map((item) => item.html)
    .join('');
}

function renderMessage(message: EmulatedMessage, names: Names): string {
  const blocks = message.blocks as Block[];
  const inner =
    blocks.length > 0
      ? blocks.map((block) => renderBlock(block, message.ts, names)).join('')
      : `<p>${mrkdwn(message.text, names)}</p>`;
  const edited = message.edits.length > 0 ? ' <span class="edited">(edited)</span>' : '';
  return `<div class="author">Postdeck <span class="app">APP</span>${edited}</div>${inner}`;
}

function renderNote(note: PrivateNote, names: Names): string {
  const blocks = note.blocks as Block[];
  const inner =
    blocks.length > 0
      ? blocks.map((block) => renderBlock(block, note.ts, names)).join('')
      : `<p>${mrkdwn(note.text, names)}</p>`;
  const command = note.command
    ? `<div class="private-label">You used <code>${escapeHtml(note.command)}</code></div>`
    : '';
  return `<article class="private">${command}<div class="author">Postdeck <span class="app">APP</span> <span class="private-label">Only visible to you</span></div>${inner}</article>`;
}

function renderBlock(block: Block, messageTs: string, names: Names): string {
  const text = (block.text ?? {}) as { text?: string; type?: string };
  switch (block.type) {
    case 'header':
      return `<h2>${escapeHtml(text.text ?? '')}</h2>`;
    case 'section':
      return `<p>${text.type === 'mrkdwn' ? mrkdwn(text.text ?? '', names) : escapeHtml(text.text ?? '')}</p>`;
    case 'image':
      return `<img src="${escapeHtml(String(block.image_url))}" alt="${escapeHtml(typeof block.alt_text === 'string' ? block.alt_text : '')}">`;
    case 'context': {
      const elements = (block.elements ?? []) as { text?: string }[];
      return `<div class="context">${elements.map((each) => `<span>${mrkdwn(each.text ?? '', names)}</span>`).join('')}</div>`;
    }
    case 'actions': {
      const elements = (block.elements ?? []) as Button[];
      return `<div class="actions">${elements.map((each) => renderButton(each, messageTs)).join('')}</div>`;
    }
    default:
      return `<pre>${escapeHtml(JSON.stringify(block))}</pre>`;
  }
}

interface Button {
  action_id?: string;
  text?: { text?: string };
  style?: string;
  url?: string;
  confirm?: {
    title?: { text?: string };
    text?: { text?: string };
    confirm?: { text?: string };
    deny?: { text?: string };
  };
}

/** A button; one with a url is a link that opens in a new tab (Slack still tells the app it was clicked). */
function renderButton(button: Button, messageTs: string): string {
  const label = button.text?.text ?? '';
  const className = button.style ?? 'default';
  if (button.url) {
    return `<a class="button ${escapeHtml(className)}" href="${escapeHtml(button.url)}" target="_blank" rel="noopener" data-message="${escapeHtml(messageTs)}" data-action="${escapeHtml(button.action_id ?? '')}">${escapeHtml(label)}</a>`;
  }
  const confirm = button.confirm && {
    title: button.confirm.title?.text ?? 'Are you sure?',
    text: button.confirm.text?.text ?? '',
    confirm: button.confirm.confirm?.text ?? 'Yes',
    deny: button.confirm.deny?.text ?? 'Cancel',
  };
  return actionButton({ label, className, messageId: messageTs, actionId: button.action_id ?? '', confirm });
}

/** The mrkdwn an app sends: *bold*, _italic_, <url|label>, <@U…>, <!date^…|fallback>, :emoji:, new lines. */
function mrkdwn(source: string, names: Names): string {
  const emoji: Record<string, string> = {
    ':musical_note:': '🎵',
    ':calendar:': '📅',
    ':white_check_mark:': '✅',
    ':warning:': '⚠️',
  };
  // The app already escaped &, < and > as Slack asks; only Slack's own <…> syntax remains raw.
  return source
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, (_m, fallback: string) => `<time>${fallback}</time>`)
    .replace(
      /<@([A-Z0-9]+)(?:\|[^>]*)?>/g,
      (_m, id: string) => `<b class="mention">@${escapeHtml(names.people.get(id) ?? id)}</b>`,
    )
    .replace(
      /<#([A-Z0-9]+)(?:\|[^>]*)?>/g,
      (_m, id: string) => `<b class="mention">#${escapeHtml(names.channels.get(id) ?? id)}</b>`,
    )
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, (_m, url: string, label: string) => `<a href="${url}">${label}</a>`)
    .replace(/\*([^*\n]+)\*/g, '<b>$1</b>')
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(/(^|\s)_([^_\n]+)_/g, '$1<i>$2</i>')
    .replace(/:[a-z_]+:/g, (code) => emoji[code] ?? code)
    .replace(/\n/g, '<br>');
}

const CSS = `
body { font: 15px/1.46 -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1c1d; background: #fff; margin: 0 auto; max-width: 760px; padding: 16px; }
h1 { font-size: 18px; border-bottom: 1px solid #ddd; padding-bottom: 8px; } h1 small { color: #888; font-weight: normal; font-size: 12px; }
article { border-bottom: 1px solid #eee; padding: 12px 0; }
.author { font-weight: 900; margin-bottom: 4px; } .app { background: #eee; color: #666; font-size: 10px; padding: 1px 3px; border-radius: 2px; }
.edited { color: #888; font-weight: normal; font-size: 12px; }
h2 { font-size: 18px; margin: 6px 0; } p { margin: 6px 0; }
img { display: block; max-width: 360px; max-height: 360px; border-radius: 6px; margin: 8px 0; border: 1px solid #ddd; }
.context { color: #616061; font-size: 12px; display: flex; flex-wrap: wrap; gap: 12px; margin: 6px 0; }
.actions button, .actions a.button { font: inherit; font-weight: 700; padding: 4px 12px; margin-right: 8px; border-radius: 4px; border: 1px solid #ccc; background: #fff; }
.actions a.button { display: inline-block; text-decoration: none; color: inherit; }
.actions .primary { background: #007a5a; color: #fff; border-color: #007a5a; } .actions .danger { color: #e01e5a; border-color: #e01e5a; }
code { background: #f6f6f6; border: 1px solid #ddd; border-radius: 3px; padding: 0 3px; color: #c01343; }
.mention { background: #e8f5fa; color: #1264a3; font-weight: normal; } a { color: #1264a3; }
.reply { margin: 8px 0 0 24px; padding-left: 12px; border-left: 3px solid #ddd; }
`;
