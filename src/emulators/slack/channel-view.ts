import { randomBytes } from 'node:crypto';
import type { ChannelActions, ModalForm, Outcome } from '../shared/channel-page.js';
import { SlackSender } from './sender.js';
import type { EmulatedTeam, SlackEmulatorState } from './state.js';
import { renderMessages } from './viewer.js';

type Json = Record<string, unknown>;

/** The app a channel view sends to (its Events API and interactivity URL, and the secret Slack signs with). */
export interface SlackAppConnection {
  eventsUrl: string;
  signingSecret: string;
  team: EmulatedTeam;
  /** The person at the channel view. */
  person: { id: string; name: string };
}

/**
 * What the person at a channel view does, sent into the app as Slack sends it, signed: slash
 * commands (form-encoded, with a response_url and a trigger_id), button clicks (block_actions) and
 * modal submissions (view_submission). Answers come back through the Web API and response URLs.
 */
export function slackChannelActions(state: SlackEmulatorState, url: string, app: SlackAppConnection): ChannelActions {
  const sender = new SlackSender(app.eventsUrl, app.signingSecret);
  const { team, person } = app;
  const user = { id: person.id, username: person.name, name: person.name, team_id: team.id };
  const responseUrl = (channel: string, command: string | null) => {
    const id = state.newResponseId();
    state.responseTargets.set(id, { channel, user: person.id, team: team.id, command });
    return `${url}/respond/${id}`;
  };
  const trigger = (channel: string) => {
    const id = `${Date.now()}.${randomBytes(6).toString('hex')}`;
    state.triggers.set(id, { channel, user: person.id });
    return id;
  };
  const common = { team: { id: team.id, domain: team.name }, user, api_app_id: state.app.appId, token: 'emulated' };

  return {
    messages: (channel) => renderMessages(state, channel, person.id),

    openModal(channel) {
      const open = state.openViews.filter((view) => view.channel === channel && view.user === person.id).at(-1);
      return open ? modalForm(open.id, open.view, open.errors) : null;
    },

    async command(channel, typed) {
      const match = /^\/(\S+)\s*([\s\S]*)$/.exec(typed.trim());
      if (!match) return { ok: false, error: 'Only slash commands reach the app here: try /postdeck help.' };
      if (match[1] !== 'postdeck') {
        return { ok: false, error: `/${match[1]} is not a valid command. Here only /postdeck reaches the app.` };
      }
      // Slack hands the app mentions as <@id|name>.
      const text = (match[2] ?? '').replace(/@([\w.-]+)/g, (all, name: string) => {
        const id = [...state.people].find(([, each]) => each === name)?.[0];
        return id ? `<@${id}|${name}>` : all;
      });
      const fields = {
        token: 'emulated',
        team_id: team.id,
        team_domain: team.name,
        channel_id: channel,
        channel_name: state.channelNames.get(channel) ?? channel,
        user_id: person.id,
        user_name: person.name,
        command: '/postdeck',
        text,
        api_app_id: state.app.appId,
        response_url: responseUrl(channel, typed.trim()),
        trigger_id: trigger(channel),
      };
      return await answered(() => sender.command(fields), '/postdeck');
    },

    async click(channel, ts, actionId) {
      const message = state.channel(channel).find((each) => each.ts === ts);
      const note = state.notes.find((each) => each.ts === ts && each.user === person.id);
      const found = findButton((message ?? note)?.blocks ?? [], actionId);
      if (!found) return { ok: false, error: 'That button is gone.' };
      const payload = {
        type: 'block_actions',
        ...common,
        container: { type: 'message', message_ts: ts, channel_id: channel, is_ephemeral: !message },
        trigger_id: trigger(channel),
        channel: { id: channel, name: state.channelNames.get(channel) ?? channel },
        ...(message ? { message: { type: 'message', ts, text: message.text, blocks: message.blocks } } : {}),
        response_url: responseUrl(channel, null),
        actions: [{ type: 'button', block_id: found.blockId, action_ts: `${Date.now() / 1000}`, ...found.button }],
      };
      return await answered(() => sender.interaction(payload), 'The button');
    },

    async submitModal(channel, viewId, values) {
      const open = state.openViews.find((view) => view.id === viewId && view.user === person.id);
      if (!open) return { ok: false, error: 'This form is no longer open.' };
      const payload = {
        type: 'view_submission',
        ...common,
        trigger_id: trigger(channel),
        view: {
          ...open.view,
          id: open.id,
          team_id: team.id,
          app_id: state.app.appId,
          state: stateOf(open.view, values),
        },
        response_urls: [],
      };
      let response: Response;
      try {
        response = await sender.interaction(payload);
      } catch (error) {
        return unreachable(error);
      }
      if (!response.ok) return { ok: false, error: `The form failed: the app answered HTTP ${response.status}.` };
      const text = await response.text();
      const answer = (text ? JSON.parse(text) : {}) as Json;
      if (answer.response_action === 'errors') {
        open.errors = (answer.errors ?? {}) as Record<string, string>;
        return { ok: false, errors: open.errors };
      }
      if (answer.response_action === 'update' && typeof answer.view === 'object') {
        Object.assign(open, { view: answer.view, errors: {} });
        return { ok: true };
      }
      state.openViews.splice(state.openViews.indexOf(open), 1);
      return { ok: true };
    },

    closeModal(channel, viewId) {
      const index = state.openViews.findIndex((view) => view.id === viewId && view.channel === channel);
      if (index >= 0) state.openViews.splice(index, 1);
    },
  };

  /** Sends, then tells the person what Slack would have: an answer in the body shows only to them. */
  async function answered(send: () => Promise<Response>, what: string): Promise<Outcome> {
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      return unreachable(error);
    }
    if (!response.ok) {
      return {
        ok: false,
        error: `${what} failed with the error "dispatch_failed" (the app answered HTTP ${response.status}).`,
      };
    }
    return { ok: true };
  }

  function unreachable(error: unknown): Outcome {
    return { ok: false, error: `Could not reach the app at ${app.eventsUrl}: ${(error as Error).message}` };
  }
}

/** A button of an actions block, with its block id, as block_actions reports it. */
function findButton(blocks: unknown[], actionId: string): { blockId: string; button: Json } | undefined {
  for (const block of blocks as Json[]) {
    if (block.type !== 'actions') continue;
    const button = ((block.elements ?? []) as Json[]).find((each) => each.action_id === actionId);
    if (button) {
      const { type: _type, confirm: _confirm, style: _style, url: _url, ...rest } = button;
      return { blockId: textOf(block.block_id), button: rest };
    }
  }
  return undefined;
}

/** A modal's input blocks as the channel view draws them; each field is named `<block_id>.<action_id>`. */
function modalForm(id: string, view: Json, errors: Record<string, string>): ModalForm {
  const plain = (value: unknown, fallback: string) =>
    String((value as { text?: string } | undefined)?.text ?? fallback);
  const fields = inputs(view).map(({ block, element }) => {
    const datetime = element.type === 'datetimepicker';
    return {
      name: `${String(block.block_id)}.${String(element.action_id)}`,
      label: plain(block.label, ''),
      kind: datetime ? ('datetime' as const) : element.multiline ? ('textarea' as const) : ('text' as const),
      value: textOf(datetime ? element.initial_date_time : element.initial_value),
      required: block.optional !== true,
      ...(typeof element.max_length === 'number' ? { maxLength: element.max_length } : {}),
    };
  });
  const byField = Object.fromEntries(
    inputs(view).flatMap(({ block, element }) => {
      const error = errors[String(block.block_id)];
      return error ? [[`${String(block.block_id)}.${String(element.action_id)}`, error]] : [];
    }),
  );
  return {
    id,
    title: plain(view.title, 'Form'),
    submit: plain(view.submit, 'Submit'),
    close: plain(view.close, 'Cancel'),
    fields,
    errors: byField,
  };
}

function inputs(view: Json): { block: Json; element: Json }[] {
  return ((view.blocks ?? []) as Json[])
    .filter((block) => block.type === 'input' && typeof block.element === 'object')
    .map((block) => ({ block, element: block.element as Json }));
}

/** `view.state.values` as Slack sends it: block id → action id → the element's type and value. */
function stateOf(view: Json, values: Record<string, string>): Json {
  const result: Record<string, Json> = {};
  for (const { block, element } of inputs(view)) {
    const raw = values[`${String(block.block_id)}.${String(element.action_id)}`] ?? '';
    const value =
      element.type === 'datetimepicker'
        ? { type: element.type, selected_date_time: Number(raw) > 0 ? Number(raw) : null }
        : { type: element.type, value: raw === '' ? null : raw };
    result[String(block.block_id)] = { ...result[String(block.block_id)], [String(element.action_id)]: value };
  }
  return { values: result };
}

/** A string or number field as text; anything else is empty. */
function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}
