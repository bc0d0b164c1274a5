import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createRestDraft } from '../support/chat-cards.js';
import { makeJpeg } from '../support/media.js';
import { connectCreator, startWorld, storeMedia, type PublishingWorld, SLOW } from '../publishing/support.js';
import {
  clickCard,
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  type SlackPerson,
  type SlackWorld,
} from './slack-support.js';

// Every log line of the world (core and the Slack bot), to see that nothing is logged above warn.
const lines: { level: number; msg: string }[] = [];
const WARN = 40;
const aboveWarn = () => lines.filter((line) => line.level > WARN).map((line) => line.msg);

let w: PublishingWorld;
let s: SlackWorld;
const ANA: SlackPerson = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };

beforeAll(async () => {
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
  });
  w = await startWorld({ logger });
  s = await startSlackWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
}, 120_000);
afterAll(async () => {
  await s?.close();
  await w?.close();
});

/** A two-slide draft made through REST and its card in the approvals channel. */
async function draftWithCard(caption: string) {
  const { platform } = await connectCreator(w);
  const media = [await storeMedia(w, await makeJpeg(1080, 1920)), await storeMedia(w, await makeJpeg(1080, 1920))];
  const postId = await createRestDraft(
    w,
    platform._id,
    caption,
    media.map((m) => m._id),
  );
  const card = await eventually(() =>
    s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === null && m.text.includes(caption)),
  );
  return { postId, card };
}

/** A signed interaction as Slack sends it from the card, with `fields` changed. */
function fromCard(card: { ts: string; text: string; channel: string }, fields: Record<string, unknown>) {
  const response = s.slack.newResponseUrl();
  const payload = {
    type: 'block_actions',
    team: { id: s.team.id, domain: s.team.name },
    user: { id: ANA.userId, username: ANA.userName, name: ANA.userName, team_id: s.team.id },
    api_app_id: 'A0POSTDECK',
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: card.ts, channel_id: card.channel, is_ephemeral: false },
    trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
    channel: { id: card.channel, name: 'approvals' },
    message: { ts: card.ts, text: card.text, type: 'message' },
    response_url: response.url,
    ...fields,
  };
  return { responseId: response.id, send: () => s.sender.interaction(payload) };
}

const stateOf = async (postId: string) => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state;

describe('every signed Slack interaction is acknowledged', () => {
  it('answers a button Postdeck no longer has with 200 and a private "no longer supported"', SLOW, async () => {
    const { postId, card } = await draftWithCard('An old card after a rename');
    const click = await clickCard(s, card, ANA, 'postdeck_approve_v0', postId);
    expect(click.status).toBe(200);
    const answer = await eventually(() => s.slack.state.responses.get(click.responseId)?.[0]);
    expect(answer).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(answer.text)).toMatch(/no longer supported/);
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(s.slack.state.channel(ANA.channelId).find((m) => m.ts === card.ts)?.edits).toEqual([]);
    expect(aboveWarn()).toEqual([]);
  });

  it('answers malformed block_actions (actions not a list, empty, missing, without an id) with 200', SLOW, async () => {
    const { postId, card } = await draftWithCard('A card clicked by a broken client');
    const malformed = [
      { actions: 'nope' },
      { actions: [] },
      { actions: undefined },
      { actions: [{ type: 'button', value: postId }] },
      { actions: [null] },
      { actions: [{ action_id: 'postdeck_approve', value: postId }], user: 'nope', team: null },
    ];
    for (const fields of malformed) {
      const sent = fromCard(card, fields);
      const response = await sent.send();
      expect({ fields, status: response.status }).toEqual({ fields, status: 200 });
    }
    const unreadable = fromCard(card, { actions: 'nope' });
    expect((await unreadable.send()).status).toBe(200);
    const answer = await eventually(() => s.slack.state.responses.get(unreadable.responseId)?.[0]);
    expect(String(answer.text)).toMatch(/no longer supported/);
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(aboveWarn()).toEqual([]);
  });

  it('answers a form and a payload type Postdeck does not know with 200', SLOW, async () => {
    const view = await s.sender.interaction({
      type: 'view_submission',
      team: { id: s.team.id, domain: s.team.name },
      user: { id: ANA.userId, username: ANA.userName, name: ANA.userName, team_id: s.team.id },
      api_app_id: 'A0POSTDECK',
      trigger_id: 'trigger-old-form',
      view: {
        id: 'V0OLD',
        type: 'modal',
        callback_id: 'postdeck_old_modal',
        private_metadata: '',
        state: { values: {} },
      },
    });
    expect(view.status).toBe(200);
    const shortcut = await s.sender.interaction({
      type: 'shortcut',
      callback_id: 'postdeck_old_shortcut',
      team: { id: s.team.id, domain: s.team.name },
      user: { id: ANA.userId, username: ANA.userName, team_id: s.team.id },
      trigger_id: 'trigger-old-shortcut',
    });
    expect(shortcut.status).toBe(200);
    const unknownType = await s.sender.interaction({ type: 'something_new', team: { id: s.team.id } });
    expect(unknownType.status).toBe(200);
    for (const notAnObject of [null, 5, 'text', []]) {
      const sent = await s.sender.interaction(notAnObject as never);
      expect({ notAnObject, status: sent.status }).toEqual({ notAnObject, status: 200 });
    }
    expect(aboveWarn()).toEqual([]);
  });

  it('asks Slack who the bot is (auth.test) once for its token, not once per request', SLOW, async () => {
    for (let i = 0; i < 3; i += 1) await runCommand(s, 'help', ANA);
    const { postId, card } = await draftWithCard('Counting auth.test');
    expect((await clickCard(s, card, ANA, 'postdeck_reject', postId)).status).toBe(200);
    await eventually(async () => (await stateOf(postId)) !== 'DRAFT');
    const authTests = s.slack.state.calls.filter((call) => call.method === 'auth.test');
    expect(authTests.map((call) => call.token)).toEqual([s.team.botToken]);
  });
});
