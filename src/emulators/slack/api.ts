import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { EmulatedMessage, SlackEmulatorState } from './state.js';

type Args = Record<string, unknown>;
type Method = (ctx: Context, args: Args, token: string | null) => Record<string, unknown>;

/**
 * The Web API methods Postdeck calls, with Slack's envelope: HTTP 200 and `{ ok: false, error }` for
 * errors, `invalid_auth` for an unknown token, `not_authed` for none. Arguments arrive form-encoded
 * (objects as JSON strings, as @slack/web-api sends them) or as JSON.
 */
export function registerApi(router: Router, state: SlackEmulatorState): void {
  const needTeam = (token: string | null) => {
    const team = state.teamOfToken(token);
    if (!team) throw new SlackError(token ? 'invalid_auth' : 'not_authed');
    return team;
  };
  const methods: Record<string, Method> = {
    'auth.test': (_ctx, _args, token) => {
      const team = needTeam(token);
      return {
        url: `https://${team.name.toLowerCase()}.slack.com/`,
        team: team.name,
        user: 'postdeck',
        team_id: team.id,
        user_id: team.botUserId,
        bot_id: `B0${team.id}`,
        is_enterprise_install: false,
      };
    },
    'chat.postMessage': (_ctx, args, token) => {
      const team = needTeam(token);
      const message: EmulatedMessage = {
        channel: requireString(args, 'channel'),
        ts: state.nextTs(),
        text: text(args.text),
        blocks: blocksOf(args),
        threadTs: typeof args.thread_ts === 'string' ? args.thread_ts : null,
        team: team.id,
        edits: [],
      };
      if (!message.text && message.blocks.length === 0) throw new SlackError('no_text');
      state.messages.push(message);
      return { channel: message.channel, ts: message.ts, message: { text: message.text, ts: message.ts } };
    },
    'chat.update': (_ctx, args, token) => {
      const team = needTeam(token);
      const channel = requireString(args, 'channel');
      const ts = requireString(args, 'ts');
      const message = state.messages.find(
        (each) => each.channel === channel && each.ts === ts && each.team === team.id,
      );
      if (!message) throw new SlackError('message_not_found');
      message.edits.push({ text: message.text, blocks: message.blocks });
      message.text = text(args.text);
      message.blocks = blocksOf(args);
      return { channel, ts, text: message.text };
    },
    'chat.postEphemeral': (_ctx, args, token) => {
      needTeam(token);
      const ephemeral = {
        channel: requireString(args, 'channel'),
        user: requireString(args, 'user'),
        text: text(args.text),
        blocks: blocksOf(args),
      };
      state.ephemerals.push(ephemeral);
      const ts = state.nextTs();
      state.notes.push({ ...ephemeral, ts, command: null, responseId: null });
      return { message_ts: ts };
    },
    'views.open': (_ctx, args, token) => {
      needTeam(token);
      const triggerId = requireString(args, 'trigger_id');
      const view = parseJson(args.view, 'view') as Record<string, unknown>;
      state.views.push({ triggerId, view });
      const id = `V${randomBytes(5).toString('hex').toUpperCase()}`;
      // A trigger from the channel view: the person there sees the modal.
      const person = state.triggers.get(triggerId);
      if (person) state.openViews.push({ id, ...person, view, errors: {} });
      return { view: { id, ...view } };
    },
    'oauth.v2.access': (ctx, args) => {
      const [id, secret] = clientCredentials(ctx, args);
      if (id !== state.app.clientId || secret !== state.app.clientSecret) throw new SlackError('invalid_client_id');
      const code = state.codes.get(text(args.code));
      if (!code) throw new SlackError('invalid_code');
      state.codes.delete(text(args.code));
      const team = state.teams.get(code.teamId);
      if (!team) throw new SlackError('invalid_code');
      return {
        app_id: state.app.appId,
        authed_user: { id: 'U0INSTALLER' },
        scope: 'commands,chat:write,chat:write.public',
        token_type: 'bot',
        access_token: team.botToken,
        bot_user_id: team.botUserId,
        team: { id: team.id, name: team.name },
        enterprise: null,
        is_enterprise_install: false,
      };
    },
  };

  router.post('/api/:method', (ctx) => {
    const name = ctx.params.method as string;
    const args = (ctx.state as { args: Args }).args;
    const auth = ctx.get('authorization');
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : typeof args.token === 'string' ? args.token : null;
    state.calls.push({ method: name, token, args });
    ctx.type = 'application/json';
    const method = methods[name];
    if (!method) {
      ctx.body = { ok: false, error: 'unknown_method' };
      return;
    }
    try {
      ctx.body = { ok: true, ...method(ctx, args, token) };
    } catch (error) {
      if (!(error instanceof SlackError)) throw error;
      ctx.body = { ok: false, error: error.code };
    }
  });

  // The page a person approves an install on; here it approves at once for the team asked (or the first).
  router.get('/oauth/v2/authorize', (ctx) => {
    const redirectUri = String(ctx.query.redirect_uri ?? '');
    const teamId = String(ctx.query.team ?? [...state.teams.keys()][0] ?? '');
    if (ctx.query.client_id !== state.app.clientId || !state.teams.has(teamId) || !redirectUri) {
      ctx.status = 400;
      ctx.body = 'invalid install request';
      return;
    }
    const code = `${Date.now()}.${randomBytes(8).toString('hex')}`;
    state.codes.set(code, { teamId, redirectUri });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    if (typeof ctx.query.state === 'string') target.searchParams.set('state', ctx.query.state);
    ctx.redirect(target.toString());
  });

  // response_url: where an app answers a command or an interaction later (Slack allows 5 in 30 minutes).
  router.post('/respond/:id', (ctx) => {
    const list = state.responses.get(ctx.params.id as string);
    if (!list) {
      ctx.status = 404;
      ctx.body = 'expired_url';
      return;
    }
    if (list.length >= 5) {
      ctx.status = 410;
      ctx.body = 'used_url';
      return;
    }
    const args = (ctx.state as { args: Args }).args;
    list.push(args);
    state.noteResponse(ctx.params.id as string, args);
    ctx.body = 'ok';
  });
}

class SlackError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

function requireString(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || !value)
    throw new SlackError(name === 'channel' ? 'channel_not_found' : 'invalid_arguments');
  return value;
}

function blocksOf(args: Args): unknown[] {
  if (args.blocks === undefined) return [];
  const blocks = parseJson(args.blocks, 'blocks');
  if (!Array.isArray(blocks)) throw new SlackError('invalid_blocks');
  return blocks;
}

function parseJson(value: unknown, _name: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new SlackError('invalid_arguments');
  }
}

function clientCredentials(ctx: Context, args: Args): [string, string] {
  const basic = ctx.get('authorization');
  if (basic.startsWith('Basic ')) {
    const [id = '', secret = ''] = Buffer.from(basic.slice(6), 'base64').toString('utf8').split(':');
    return [id, secret];
  }
  return [text(args.client_id), text(args.client_secret)];
}

/** A string argument, or empty when absent or not a string. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
