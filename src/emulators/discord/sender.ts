import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { fillModal } from './modal-form.js';
import { interactionPayload, type DiscordUser } from './payload.js';
import { acknowledge } from './responses.js';
import type { DiscordEmulatorState, EmulatedInteraction, EmulatedMessage } from './state.js';

export type { DiscordUser } from './payload.js';

type Json = Record<string, unknown>;

/** How to bend a delivery, for tests of what the app must refuse or tolerate. */
export interface SendOptions {
  /** Sign with a key that is not the application's (a forgery). */
  forge?: boolean;
  /** Seconds since the epoch to sign with; an old one must be refused. */
  timestamp?: number;
}

/** What came of a delivery: the app's HTTP answer and the interaction as the emulator keeps it. */
export interface Sent {
  status: number;
  body: unknown;
  interaction: EmulatedInteraction;
}

/**
 * Sends interactions into an app as Discord does over HTTP: each is registered with the emulator
 * (so its token opens the webhook routes), POSTed as JSON with X-Signature-Ed25519 (the
 * application's Ed25519 signature over timestamp + body) and X-Signature-Timestamp, and the app's
 * answer is applied as the interaction's first response.
 */
export class DiscordSender {
  constructor(
    private readonly state: DiscordEmulatorState,
    private readonly target: string,
    private readonly keys: { publicKey: KeyObject; privateKey: KeyObject },
  ) {}

  static newKeys(): { publicKey: KeyObject; privateKey: KeyObject } {
    return generateKeyPairSync('ed25519');
  }

  /** The raw 32-byte Ed25519 public key as 64 hex digits, as the developer portal shows it. */
  static publicKeyHex(publicKey: KeyObject): string {
    const jwk = publicKey.export({ format: 'jwk' });
    return Buffer.from(jwk.x ?? '', 'base64url').toString('hex');
  }

  ping(options: SendOptions = {}): Promise<Sent> {
    return this.deliver(this.register(1, null, {}, null), options);
  }

  /** `/postdeck <path...>` with the last subcommand's options (a user option brings its resolved user). */
  command(who: DiscordUser, path: string[], options: Json[] = [], send: SendOptions = {}): Promise<Sent> {
    let nested: Json[] = options;
    for (const [index, name] of [...path].reverse().entries()) {
      nested = [{ type: index === 0 ? 1 : 2, name, options: nested }];
    }
    const registered = this.state.globalCommands.find((each) => each.name === 'postdeck');
    const users = options.filter((option) => option.type === 6).map((option) => String(option.value));
    const data: Json = {
      id: registered?.id ?? this.state.snowflake(),
      name: 'postdeck',
      type: 1,
      options: nested,
      ...(users.length > 0
        ? { resolved: { users: Object.fromEntries(users.map((id) => [id, { id, username: `user${id}` }])) } }
        : {}),
    };
    return this.deliver(this.register(2, who, data, null), send);
  }

  /** A click on a button of `message`. */
  click(who: DiscordUser, message: EmulatedMessage, customId: string, send: SendOptions = {}): Promise<Sent> {
    const data = { custom_id: customId, component_type: 2 };
    return this.deliver(this.register(3, who, data, message), send);
  }

  /**
   * Submits the modal the app opened in answer to `opened` (a click), as the person would: fields
   * typed in `values` by custom id, the others left as prefilled. The submission carries the message
   * the clicked button sits on.
   */
  submitModal(who: DiscordUser, opened: Sent, values: Record<string, string>, send: SendOptions = {}): Promise<Sent> {
    const answer = (opened.interaction.response?.body ?? {}) as Json;
    if (answer.type !== 9) throw new Error(`the app answered that click with type ${String(answer.type)}, not a modal`);
    const modal = (answer.data ?? {}) as Json;
    const message = opened.interaction.messageId ? this.state.message(opened.interaction.messageId) : undefined;
    const data = { custom_id: modal.custom_id, components: fillModal(modal, values) };
    return this.deliver(this.register(5, who, data, message ?? null), send);
  }

  /** Delivers an interaction again: the same body, signed afresh (a replay, or Discord sending twice). */
  resend(interaction: EmulatedInteraction, send: SendOptions = {}): Promise<Sent> {
    return this.deliver(interaction, send, false);
  }

  private register(type: number, who: DiscordUser | null, data: Json, message: EmulatedMessage | null) {
    const payload = interactionPayload(this.state, { type, who, data, message });
    const interaction: EmulatedInteraction = {
      id: String(payload.id),
      token: String(payload.token),
      type,
      createdAt: this.state.now(),
      guildId: who?.guildId ?? null,
      channelId: typeof payload.channel_id === 'string' ? payload.channel_id : '',
      userId: who?.id ?? '',
      payload,
      messageId: message?.id ?? null,
      response: null,
      originalId: null,
      followUpIds: [],
    };
    this.state.interactions.set(interaction.id, interaction);
    return interaction;
  }

  private async deliver(interaction: EmulatedInteraction, options: SendOptions, first = true): Promise<Sent> {
    const body = JSON.stringify(interaction.payload);
    const timestamp = String(options.timestamp ?? Math.floor(this.state.now() / 1000));
    const key = options.forge ? DiscordSender.newKeys().privateKey : this.keys.privateKey;
    const signature = sign(null, Buffer.from(timestamp + body), key).toString('hex');
    const started = Date.now();
    const response = await fetch(this.target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)',
        'x-signature-ed25519': signature,
        'x-signature-timestamp': timestamp,
      },
      body,
    });
    const text = await response.text();
    const answer =
      text && response.headers.get('content-type')?.startsWith('application/json')
        ? (JSON.parse(text) as unknown)
        : text;
    // A replay's answer goes nowhere: Discord only ever takes the first response. A bare 202 means
    // the app answers through the callback route instead.
    const deferredToCallback = response.status === 202 && !text;
    if (first && response.status !== 401 && !deferredToCallback) {
      acknowledge(this.state, interaction, {
        via: 'http',
        status: response.status,
        body: answer,
        ms: Date.now() - started,
      });
    }
    return { status: response.status, body: answer, interaction };
  }
}
