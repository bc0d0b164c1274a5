import type Router from '@koa/router';
import type { Context } from 'koa';
import { CHANNEL_CSS, CHANNEL_SCRIPT } from './channel-script.js';

/**
 * What a person can do in an emulator's channel view once an app is connected to it: type a slash
 * command, click a button, fill in and submit (or cancel) the form the app opened. Each platform's
 * emulator turns these into the signed requests its platform would send.
 */
export interface ChannelActions {
  /** The channel's messages as HTML (what everyone sees, and what only this person sees). */
  messages(channel: string): string;
  /** The form the app opened for this person in this channel, if one is open. */
  openModal(channel: string): ModalForm | null;
  command(channel: string, text: string): Promise<Outcome>;
  click(channel: string, messageId: string, actionId: string): Promise<Outcome>;
  submitModal(channel: string, modalId: string, values: Record<string, string>): Promise<Outcome>;
  closeModal(channel: string, modalId: string): void;
}

/** What came of an action: done, or a reason to show (and per-field errors for a form). */
export type Outcome = { ok: true } | { ok: false; error?: string; errors?: Record<string, string> };

/** A form as the channel view draws it; each platform maps its own modal to this. */
export interface ModalForm {
  id: string;
  title: string;
  submit: string;
  close: string;
  fields: ModalField[];
  /** Errors the app answered, by field name. */
  errors: Record<string, string>;
}

export interface ModalField {
  name: string;
  label: string;
  /** `datetime` is a local date and time, sent as seconds since the epoch. */
  kind: 'text' | 'textarea' | 'datetime';
  value: string;
  required: boolean;
  maxLength?: number;
  hint?: string;
}

/**
 * The channel view's routes under `/__control/channels/:channel`: the page, its live state (polled
 * by the page) and, while an app is connected, the person's commands, clicks and forms (JSON bodies).
 */
export function registerChannelView(
  router: Router,
  page: (channel: string, interactive: boolean) => string,
  actions: () => ChannelActions | null,
  readBody: (ctx: Context) => Record<string, unknown>,
): void {
  const channelOf = (ctx: Context) => String((ctx as Context & { params: Record<string, string> }).params.channel);
  router.get('/__control/channels/:channel', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = page(channelOf(ctx), actions() !== null);
  });
  router.get('/__control/channels/:channel/live', (ctx) => {
    const connected = actions();
    const channel = channelOf(ctx);
    const modal = connected?.openModal(channel) ?? null;
    ctx.body = {
      messages: connected?.messages(channel) ?? '',
      modal: modal && { id: modal.id, html: renderModal(modal) },
    };
  });
  const act =
    (run: (connected: ChannelActions, channel: string, body: Record<string, unknown>) => Promise<Outcome>) =>
    async (ctx: Context) => {
      const connected = actions();
      if (!connected) {
        ctx.status = 409;
        ctx.body = { ok: false, error: 'No app is connected to this emulator.' };
        return;
      }
      ctx.body = await run(connected, channelOf(ctx), readBody(ctx));
    };
  router.post(
    '/__control/channels/:channel/command',
    act((c, channel, body) => c.command(channel, text(body.text))),
  );
  router.post(
    '/__control/channels/:channel/click',
    act((c, channel, body) => c.click(channel, text(body.message), text(body.action))),
  );
  router.post(
    '/__control/channels/:channel/modal',
    act((c, channel, body) => {
      const values = typeof body.values === 'object' && body.values !== null ? body.values : {};
      return c.submitModal(channel, text(body.modal), values as Record<string, string>);
    }),
  );
  router.post(
    '/__control/channels/:channel/modal/close',
    act((c, channel, body) => {
      c.closeModal(channel, text(body.modal));
      return Promise.resolve({ ok: true as const });
    }),
  );
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The whole page: the platform's own look (`css`), its messages, and the composer and script when interactive. */
export function channelPage(input: {
  title: string;
  heading: string;
  css: string;
  messages: string;
  interactive: boolean;
  placeholder: string;
}): string {
  const composer = input.interactive
    ? `<form id="composer" class="composer"><input name="text" aria-label="Message" autocomplete="off" placeholder="${escapeHtml(input.placeholder)}"><button type="submit">Send</button></form><p id="problem" class="problem" role="alert" hidden></p><div id="modal" class="modal-backdrop" hidden></div><script>${CHANNEL_SCRIPT}</script>`
    : '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(input.title)}</title><style>${input.interactive ? CHANNEL_CSS : ''}${input.css}</style></head><body><h1>${input.heading}</h1><main id="messages">${input.messages}</main>${composer}</body></html>`;
}

/** A button the person can click: its message and action travel in data attributes. */
export function actionButton(input: {
  label: string;
  className: string;
  messageId: string;
  actionId: string;
  confirm?: { title: string; text: string; confirm: string; deny: string };
}): string {
  const confirm = input.confirm
    ? ` data-confirm-title="${escapeHtml(input.confirm.title)}" data-confirm-text="${escapeHtml(input.confirm.text)}" data-confirm-yes="${escapeHtml(input.confirm.confirm)}" data-confirm-no="${escapeHtml(input.confirm.deny)}"`
    : '';
  return `<button type="button" class="${escapeHtml(input.className)}" data-message="${escapeHtml(input.messageId)}" data-action="${escapeHtml(input.actionId)}"${confirm}>${escapeHtml(input.label)}</button>`;
}

function renderModal(modal: ModalForm): string {
  const fields = modal.fields
    .map((field) => {
      const id = `field-${field.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      const common = `id="${id}" name="${escapeHtml(field.name)}"${field.required ? ' required' : ''}${field.maxLength ? ` maxlength="${field.maxLength}"` : ''}`;
      const input =
        field.kind === 'textarea'
          ? `<textarea ${common} rows="5">${escapeHtml(field.value)}</textarea>`
          : field.kind === 'datetime'
            ? `<input type="datetime-local" data-epoch ${common} data-value="${escapeHtml(field.value)}">`
            : `<input ${common} value="${escapeHtml(field.value)}">`;
      const error = modal.errors[field.name];
      return `<label for="${id}">${escapeHtml(field.label)}</label>${input}${field.hint ? `<small>${escapeHtml(field.hint)}</small>` : ''}${error ? `<p class="problem" role="alert">${escapeHtml(error)}</p>` : ''}`;
    })
    .join('');
  return `<form class="modal" role="dialog" aria-label="${escapeHtml(modal.title)}" data-modal="${escapeHtml(modal.id)}"><h2>${escapeHtml(modal.title)}</h2>${fields}<p class="problem" role="alert" data-form-problem hidden></p><div class="modal-actions"><button type="button" data-close>${escapeHtml(modal.close)}</button><button type="submit" class="primary">${escapeHtml(modal.submit)}</button></div></form>`;
}
