import type { ChannelActions, ModalField, ModalForm, Outcome } from '../shared/channel-page.js';
import type { DiscordSender, DiscordUser, Sent } from './sender.js';
import type { DiscordEmulatorState } from './state.js';
import { renderMessages } from './viewer.js';

type Json = Record<string, unknown>;

const SUB_COMMAND = 1;
const SUB_COMMAND_GROUP = 2;
const USER = 6;

/** The person at a channel view, in the guild whose channels it shows. */
export interface DiscordPerson {
  id: string;
  name: string;
  guildId: string;
}

/**
 * What the person at a channel view does, sent into the app as Discord sends it (signed with the
 * application's Ed25519 key): a slash command read against the registered commands, a button
 * click, a modal submitted. The app's answers land in the emulator as they do in tests.
 */
export function discordChannelActions(
  state: DiscordEmulatorState,
  sender: DiscordSender,
  person: DiscordPerson,
): ChannelActions {
  const who = (channelId: string): DiscordUser => ({
    id: person.id,
    username: person.name,
    guildId: person.guildId,
    channelId,
  });
  const opened = new Map<string, Sent>();

  /** Tells the person what Discord's client would: "The application did not respond" and why. */
  const outcomeOf = (sent: Sent): Outcome => {
    if (sent.status === 401) return { ok: false, error: 'The application refused the signature (HTTP 401).' };
    const problems = sent.interaction.response?.problems ?? [];
    if (problems.length > 0) return { ok: false, error: `The application did not respond: ${problems.join('; ')}` };
    const body = (sent.body ?? {}) as Json;
    if (body.type === 9) {
      opened.set(sent.interaction.id, sent);
      state.openModals.set(sent.interaction.id, {
        channelId: sent.interaction.channelId,
        userId: person.id,
        data: (body.data ?? {}) as Json,
      });
    }
    return { ok: true };
  };
  const sending = async (send: () => Promise<Sent>): Promise<Outcome> => {
    try {
      return outcomeOf(await send());
    } catch (error) {
      return { ok: false, error: `Could not reach the application: ${(error as Error).message}` };
    }
  };

  return {
    messages: (channel) => renderMessages(state, channel, person.id),

    openModal(channel) {
      const open = [...state.openModals].filter(([, m]) => m.channelId === channel && m.userId === person.id).at(-1);
      return open ? modalForm(open[0], open[1].data) : null;
    },

    async command(channel, typed) {
      const parsed = parseCommand(state, person.guildId, typed);
      if ('error' in parsed) return { ok: false, error: parsed.error };
      return await sending(async () => {
        const sent = await sender.command(who(channel), parsed.path, parsed.options);
        state.typedCommands.set(sent.interaction.id, typed.trim());
        return sent;
      });
    },

    async click(channel, messageId, customId) {
      const message = state.message(messageId);
      if (!message || message.channelId !== channel) return { ok: false, error: 'That message is gone.' };
      return await sending(() => sender.click(who(channel), message, customId));
    },

    async submitModal(_channel, interactionId, values) {
      const open = opened.get(interactionId);
      if (!open) return { ok: false, error: 'This form is no longer open.' };
      let sent: Sent;
      try {
        sent = await sender.submitModal(who(open.interaction.channelId), open, values);
      } catch (error) {
        // What Discord's client would not let through (an empty required field, a value too long).
        return { ok: false, error: (error as Error).message };
      }
      opened.delete(interactionId);
      state.openModals.delete(interactionId);
      return outcomeOf(sent);
    },

    closeModal(_channel, interactionId) {
      opened.delete(interactionId);
      state.openModals.delete(interactionId);
    },
  };
}

/**
 * `/name sub [group sub] values...` read against the command as registered (in the guild, else
 * globally): subcommand names first, then the last one's options in order; `@name` is a person.
 */
function parseCommand(
  state: DiscordEmulatorState,
  guildId: string,
  typed: string,
): { path: string[]; options: Json[] } | { error: string } {
  const [first = '', ...words] = typed.trim().split(/\s+/);
  if (!first.startsWith('/')) return { error: 'Only slash commands reach the application here: try /postdeck help.' };
  const name = first.slice(1);
  const registered = [...(state.guildCommands.get(guildId) ?? []), ...state.globalCommands].find(
    (command) => command.name === name,
  );
  if (!registered) return { error: `/${name} is not registered here (register it with the application's commands).` };
  const path: string[] = [];
  let options = (registered.options ?? []) as Json[];
  for (;;) {
    const nested = options.find(
      (option) => (option.type === SUB_COMMAND || option.type === SUB_COMMAND_GROUP) && option.name === words[0],
    );
    if (!nested) break;
    path.push(String(nested.name));
    words.shift();
    options = (nested.options ?? []) as Json[];
  }
  if (options.some((option) => option.type === SUB_COMMAND || option.type === SUB_COMMAND_GROUP)) {
    const choices = options.map((option) => String(option.name)).join(', ');
    return { error: `/${[name, ...path].join(' ')} needs one of: ${choices}.` };
  }
  const values: Json[] = [];
  for (const [index, option] of options.entries()) {
    const last = index === options.length - 1;
    const word = last ? words.splice(0).join(' ') : words.shift();
    if (!word) {
      if (option.required === true) return { error: `/${[name, ...path].join(' ')} needs its ${String(option.name)}.` };
      continue;
    }
    if (option.type === USER) {
      const wanted = word.replace(/^@/, '');
      const id = [...state.people].find(([, each]) => each === wanted)?.[0];
      if (!id) return { error: `Nobody called ${word} is in this server.` };
      values.push({ type: USER, name: option.name, value: id });
    } else {
      values.push({ type: option.type, name: option.name, value: word });
    }
  }
  return { path, options: values };
}

/** A modal's text inputs (in labels or in action rows) as the channel view draws them. */
function modalForm(id: string, data: Json): ModalForm {
  const fields: ModalField[] = [];
  for (const part of (data.components ?? []) as Json[]) {
    const inputs: { label: unknown; hint: unknown; input: Json }[] = [];
    if (part.type === 18) inputs.push({ label: part.label, hint: part.description, input: part.component as Json });
    if (part.type === 1) {
      for (const input of (part.components ?? []) as Json[])
        inputs.push({ label: input.label, hint: undefined, input });
    }
    for (const { label, hint, input } of inputs) {
      fields.push({
        name: String(input.custom_id),
        label: textOf(label) || textOf(input.label),
        kind: input.style === 2 ? 'textarea' : 'text',
        value: typeof input.value === 'string' ? input.value : '',
        required: input.required !== false,
        ...(typeof input.max_length === 'number' ? { maxLength: input.max_length } : {}),
        ...(typeof hint === 'string' ? { hint } : {}),
      });
    }
  }
  return { id, title: textOf(data.title) || 'Form', submit: 'Submit', close: 'Cancel', fields, errors: {} };
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
