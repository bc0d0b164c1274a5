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

  /** The messages in `channel`, top-level first in order, then replies. */
  channel(channel: string): EmulatedMessage[] {
    return this.messages.filter((message) => message.channel === channel);
  }
}
