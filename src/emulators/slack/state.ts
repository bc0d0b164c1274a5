import { randomBytes } from 'node:crypto';

/** A Slack workspace the emulator knows, with the bot token its app holds there. */
export interface EmulatedTeam {
  id: string;
  name: string;
  botToken: string;
  botUserId: string;
}

/** A message the bot posted (or last rewrote) in a channel. */
export interface EmulatedMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown[];
  threadTs: string | null;
  team: string;
  /** Every version it had, oldest first (chat.update appends). */
  edits: { text: string; blocks: unknown[] }[];
}

/**
 * Not Slack's: what only one person sees in a channel view (a command's answers through its
 * response_url, chat.postEphemeral), in channel order by `ts`.
 */
export interface PrivateNote {
  channel: string;
  user: string;
  ts: string;
  text: string;
  blocks: unknown[];
  /** The command it answers, shown above it as Slack does. */
  command: string | null;
  /** The response_url it came through, whose later posts may replace it. */
  responseId: string | null;
}

/** Not Slack's: a modal the app opened for a person of the channel view (views.open with their trigger_id). */
export interface OpenView {
  id: string;
  channel: string;
  user: string;
  view: Record<string, unknown>;
  /** Errors the app answered the last submission with, by block id. */
  errors: Record<string, string>;
}

/** One call of the Web API, as received. */
export interface ApiCall {
  method: string;
  token: string | null;
  args: Record<string, unknown>;
}

/** What the emulator holds; tests read it to see what the app did. */
export class SlackEmulatorState {
  readonly teams = new Map<string, EmulatedTeam>();
  readonly messages: EmulatedMessage[] = [];
  readonly ephemerals: { channel: string; user: string; text: string; blocks: unknown[] }[] = [];
  /** People of the channel view, id to name (mentions of them are drawn by name). */
  readonly people = new Map<string, string>();
  /** Channel names by id, for the channel view's heading. */
  readonly channelNames = new Map<string, string>();
  readonly notes: PrivateNote[] = [];
  /** Where a response_url handed out for the channel view leads: its channel, person and command or message. */
  readonly responseTargets = new Map<string, { channel: string; user: string; team: string; command: string | null }>();
  /** trigger_ids handed out for the channel view, to the channel and person a modal opens for. */
  readonly triggers = new Map<string, { channel: string; user: string }>();
  readonly openViews: OpenView[] = [];
  readonly views: { triggerId: string; view: Record<string, unknown> }[] = [];
  /** Posts to response URLs, by response URL id. */
  readonly responses = new Map<string, Record<string, unknown>[]>();
  readonly calls: ApiCall[] = [];
  /** OAuth codes handed out by the authorize page, to the team they install into. */
  readonly codes = new Map<string, { teamId: string; redirectUri: string }>();
  private clock = 1_790_000_000;
  private counter = 0;

  constructor(readonly app: { clientId: string; clientSecret: string; appId: string }) {}

  addTeam(id: string, name: string): EmulatedTeam {
    const team: EmulatedTeam = {
      id,
      name,
      botToken: `xoxb-${id}-${randomBytes(12).toString('hex')}`,
      botUserId: `U0BOT${id.slice(-4)}`,
    };
    this.teams.set(id, team);
    return team;
  }

  teamOfToken(token: string | null): EmulatedTeam | undefined {
    return [...this.teams.values()].find((team) => team.botToken === token);
  }

  /** A message timestamp as Slack makes them: seconds and a 6-digit sequence. */
  nextTs(): string {
    this.counter += 1;
    return `${this.clock + this.counter}.${String(this.counter).padStart(6, '0')}`;
  }

  newResponseId(): string {
    const id = randomBytes(9).toString('hex');
    this.responses.set(id, []);
    return id;
  }

  /**
   * A post to a channel view's response_url: a message for everyone (`in_channel`), or a note only
   * its person sees, replacing the note this URL made before when `replace_original` is true.
   */
  noteResponse(responseId: string, args: Record<string, unknown>): void {
    const target = this.responseTargets.get(responseId);
    if (!target) return;
    const text = typeof args.text === 'string' ? args.text : '';
    const blocks = Array.isArray(args.blocks) ? (args.blocks as unknown[]) : [];
    if (args.response_type === 'in_channel') {
      const ts = this.nextTs();
      this.messages.push({ channel: target.channel, ts, text, blocks, threadTs: null, team: target.team, edits: [] });
      return;
    }
    const earlier = [...this.notes].reverse().find((note) => note.responseId === responseId);
    if (earlier && args.delete_original === true) {
      this.notes.splice(this.notes.indexOf(earlier), 1);
      return;
    }
    if (earlier && args.replace_original === true) {
      Object.assign(earlier, { text, blocks });
      return;
    }
    const { channel, user, command } = target;
    this.notes.push({ channel, user, ts: this.nextTs(), text, blocks, command, responseId });
  }

  /** The messages in `channel`, top-level first in order, then replies. */
  channel(channel: string): EmulatedMessage[] {
    return this.messages.filter((message) => message.channel === channel);
  }
}
