import type { EmulatedMessage } from './state.js';

type Block = Record<string, unknown>;

/**
 * A channel as a Slack client would roughly draw it (Block Kit: header, section, image, context,
 * actions), so a person can look at what an app posted. Not Slack's own rendering: an aid for review.
 */
export function renderChannel(channel: string, messages: readonly EmulatedMessage[]): string {
  const top = messages.filter((message) => message.threadTs === null);
  const body = top
    .map((message) => {
      const replies = messages.filter((each) => each.threadTs === message.ts);
      const thread = replies.map((reply) => `<div class="reply">${renderMessage(reply)}</div>`).join('');
      return `<article>${renderMessage(message)}${thread}</article>`;
    })
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>#${escapeHtml(channel)}</title><style>${CSS}</style></head><body><h1># ${escapeHtml(channel)} <small>Slack emulator</small></h1>${body}</body></html>`;
}

function renderMessage(message: EmulatedMessage): string {
  const blocks = message.blocks as Block[];
  const inner = blocks.length > 0 ? blocks.map(renderBlock).join('') : `<p>${mrkdwn(message.text)}</p>`;
  const edited = message.edits.length > 0 ? ' <span class="edited">(edited)</span>' : '';
  return `<div class="author">Postdeck <span class="app">APP</span>${edited}</div>${inner}`;
}

function renderBlock(block: Block): string {
  const text = (block.text ?? {}) as { text?: string; type?: string };
  switch (block.type) {
    case 'header':
      return `<h2>${escapeHtml(text.text ?? '')}</h2>`;
    case 'section':
      return `<p>${text.type === 'mrkdwn' ? mrkdwn(text.text ?? '') : escapeHtml(text.text ?? '')}</p>`;
    case 'image':
      return `<img src="${escapeHtml(String(block.image_url))}" alt="${escapeHtml(typeof block.alt_text === 'string' ? block.alt_text : '')}">`;
    case 'context': {
      const elements = (block.elements ?? []) as { text?: string }[];
      return `<div class="context">${elements.map((each) => `<span>${mrkdwn(each.text ?? '')}</span>`).join('')}</div>`;
    }
    case 'actions': {
      const elements = (block.elements ?? []) as { text?: { text?: string }; style?: string }[];
      const buttons = elements.map(
        (each) => `<button class="${each.style ?? 'default'}">${escapeHtml(each.text?.text ?? '')}</button>`,
      );
      return `<div class="actions">${buttons.join('')}</div>`;
    }
    default:
      return `<pre>${escapeHtml(JSON.stringify(block))}</pre>`;
  }
}

/** The mrkdwn an app sends: *bold*, _italic_, <url|label>, <@U…>, <!date^…|fallback>, :emoji:, new lines. */
function mrkdwn(source: string): string {
  const emoji: Record<string, string> = {
    ':musical_note:': '🎵',
    ':calendar:': '📅',
    ':white_check_mark:': '✅',
    ':warning:': '⚠️',
  };
  // The app already escaped &, < and > as Slack asks; only Slack's own <…> syntax remains raw.
  return source
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, (_m, fallback: string) => `<time>${fallback}</time>`)
    .replace(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g, (_m, id: string) => `<b class="mention">@${id}</b>`)
    .replace(/<#([A-Z0-9]+)(?:\|[^>]*)?>/g, (_m, id: string) => `<b class="mention">#${id}</b>`)
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, (_m, url: string, label: string) => `<a href="${url}">${label}</a>`)
    .replace(/\*([^*\n]+)\*/g, '<b>$1</b>')
    .replace(/(^|\s)_([^_\n]+)_/g, '$1<i>$2</i>')
    .replace(/:[a-z_]+:/g, (code) => emoji[code] ?? code)
    .replace(/\n/g, '<br>');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const CSS = `
body { font: 15px/1.46 -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1c1d; margin: 0 auto; max-width: 760px; padding: 16px; }
h1 { font-size: 18px; border-bottom: 1px solid #ddd; padding-bottom: 8px; } h1 small { color: #888; font-weight: normal; font-size: 12px; }
article { border-bottom: 1px solid #eee; padding: 12px 0; }
.author { font-weight: 900; margin-bottom: 4px; } .app { background: #eee; color: #666; font-size: 10px; padding: 1px 3px; border-radius: 2px; }
.edited { color: #888; font-weight: normal; font-size: 12px; }
h2 { font-size: 18px; margin: 6px 0; } p { margin: 6px 0; }
img { display: block; max-width: 360px; max-height: 360px; border-radius: 6px; margin: 8px 0; border: 1px solid #ddd; }
.context { color: #616061; font-size: 12px; display: flex; flex-wrap: wrap; gap: 12px; margin: 6px 0; }
.actions button { font: inherit; font-weight: 700; padding: 4px 12px; margin-right: 8px; border-radius: 4px; border: 1px solid #ccc; background: #fff; }
.actions .primary { background: #007a5a; color: #fff; border-color: #007a5a; } .actions .danger { color: #e01e5a; border-color: #e01e5a; }
.mention { background: #e8f5fa; color: #1264a3; font-weight: normal; } a { color: #1264a3; }
.reply { margin: 8px 0 0 24px; padding-left: 12px; border-left: 3px solid #ddd; }
`;
