import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction } from '../../src/core/audit/documents.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { createRestDraft } from '../support/chat-cards.js';
import { makeJpeg } from '../support/media.js';
import {
  connectCreator,
  emulatorPosts,
  startWorld,
  storeMedia,
  type PublishingWorld,
  SLOW,
} from '../publishing/support.js';
import {
  clickCard,
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  submitModal,
  type SlackPerson,
  type SlackWorld,
} from './slack-support.js';

let w: PublishingWorld;
let s: SlackWorld;
let platform: PlatformDoc;
let openId: string;
const ANA: SlackPerson = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
const BEN: SlackPerson = { userId: 'U0BEN', userName: 'ben', channelId: 'C0APPROVALS' };
const EVE: SlackPerson = { userId: 'U0EVE', userName: 'eve', channelId: 'C0APPROVALS' };

beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
  expect(await runCommand(s, 'approvers add <@U0BEN|ben>', ANA)).toBe('Approvers: <@U0ANA>, <@U0BEN>.');
  ({ platform, openId } = await connectCreator(w));
}, 120_000);
afterAll(async () => {
  await s?.close();
  await w?.close();
});

/** Creates a two-slide draft through REST and waits for its card in the approvals channel. */
async function draftWithCard(content: string) {
  const media = [await storeMedia(w, await makeJpeg(1080, 1920)), await storeMedia(w, await makeJpeg(1080, 1920))];
  const postId = await createRestDraft(
    w,
    platform._id,
    content,
    media.map((m) => m._id),
  );
  const card = await eventually(() =>
    s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === null && m.text.includes(content)),
  );
  return { postId, card };
}

/** The audit entries of one action about one post. */
const auditOf = (postId: string, action: AuditAction) =>
  w.t.deps.db.audit.find({ action, 'subject.id': postId }).toArray();

const stateOf = async (postId: string) => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state;
const tiktokPostsWith = async (caption: string) =>
  (await emulatorPosts(w, openId)).posts.filter(
    (p) => (p.request.post_info as Record<string, unknown>).description === caption,
  );

describe('Slack approval cards', () => {
  it('schedules through the modal: the post is queued at the picked time and the card says when', SLOW, async () => {
    const { postId, card } = await draftWithCard('Schedule me from Slack');
    const click = await clickCard(s, card, ANA, 'postdeck_schedule', postId);
    expect(click.status).toBe(200);
    const at = Math.floor(Date.now() / 1000) + 3 * 3600;
    const past = await submitModal(s, ANA, click.triggerId, {
      when: { at: { type: 'datetimepicker', selected_date_time: Math.floor(Date.now() / 1000) - 60 } },
    });
    expect(await past.json()).toMatchObject({ response_action: 'errors', errors: { when: expect.any(String) } });
    expect(await stateOf(postId)).toBe('DRAFT');

    const sent = await submitModal(s, ANA, click.triggerId, {
      when: { at: { type: 'datetimepicker', selected_date_time: at } },
    });
    expect(sent.status).toBe(200);
    const post = await eventually(async () => {
      const doc = await w.t.deps.db.posts.findOne({ _id: postId });
      return doc?.state === 'QUEUE' ? doc : null;
    });
    expect(post.scheduledFor?.getTime()).toBe(at * 1000);
    await eventually(() => card.text.startsWith('Scheduled'));
    const shown = JSON.stringify(card.blocks);
    expect(shown).toContain(`<!date^${at}^`);
    expect(shown).toContain('<@U0ANA> scheduled it for');
    expect(shown).not.toContain('postdeck_approve');
  });

  it('refuses a picked time past the year 9999 as publish_post does; the draft stays', SLOW, async () => {
    const { postId, card } = await draftWithCard('Schedule me in year 33658');
    const click = await clickCard(s, card, ANA, 'postdeck_schedule', postId);
    // 10^12 seconds is in the year 33658: a time the API's schema refuses (ISO 8601 has four-digit years).
    const sent = await submitModal(s, ANA, click.triggerId, {
      when: { at: { type: 'datetimepicker', selected_date_time: 1e12 } },
    });
    expect(sent.status).toBe(200);
    const refusal = await eventually(() => s.slack.state.responses.get(click.responseId)?.[0]);
    expect(refusal).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('scheduledFor') });
    expect(await w.t.deps.db.posts.findOne({ _id: postId })).toMatchObject({ state: 'DRAFT', scheduledFor: null });
  });

  it('edits the caption in the modal, then Approve publishes the edited caption', SLOW, async () => {
    const { postId, card } = await draftWithCard('Caption before the edit');
    const click = await clickCard(s, card, BEN, 'postdeck_edit', postId);
    const opened = await eventually(() => s.slack.state.views.find((v) => v.triggerId === click.triggerId));
    expect(JSON.stringify(opened.view)).toContain('Caption before the edit');
    const empty = await submitModal(s, BEN, click.triggerId, {
      caption: { text: { type: 'plain_text_input', value: '   ' } },
    });
    expect(await empty.json()).toMatchObject({ response_action: 'errors' });
    await submitModal(s, BEN, click.triggerId, {
      caption: { text: { type: 'plain_text_input', value: 'Caption after the edit #slack' } },
    });
    await eventually(() => JSON.stringify(card.blocks).includes('Caption after the edit'));
    expect(await stateOf(postId)).toBe('DRAFT');

    await clickCard(s, card, ANA, 'postdeck_approve', postId);
    await eventually(async () => (await stateOf(postId)) === 'PUBLISHED', 60_000);
    expect((await w.t.deps.db.posts.findOne({ _id: postId }))?.content).toBe('Caption after the edit #slack');
    expect(await tiktokPostsWith('Caption after the edit #slack')).toHaveLength(1);
    await eventually(() => card.text.startsWith('Published on TikTok'));
    expect(JSON.stringify(card.blocks)).toContain('<@U0BEN> edited the caption');
    // The audit trail: Ana approved through Slack with the link's key; Postdeck published as she asked.
    expect(await auditOf(postId, 'post.approved')).toMatchObject([
      { surface: 'slack', actor: { type: 'api_key' }, chatUser: { platform: 'slack', id: 'U0ANA', name: 'ana' } },
    ]);
    const published = await eventually(async () => {
      const entries = await auditOf(postId, 'post.published');
      return entries.length > 0 ? entries : null;
    });
    expect(published).toMatchObject([
      { surface: 'slack', actor: { type: 'api_key' }, chatUser: { platform: 'slack', id: 'U0ANA', name: 'ana' } },
    ]);
  });

  it('rejects: the draft is deleted and the card says who rejected it', SLOW, async () => {
    const { postId, card } = await draftWithCard('Reject me');
    await clickCard(s, card, ANA, 'postdeck_reject', postId);
    await eventually(async () => !(await w.t.deps.db.posts.findOne({ _id: postId })));
    await eventually(() => card.text.startsWith('Rejected'));
    expect(JSON.stringify(card.blocks)).toContain('<@U0ANA> rejected it');
    expect(JSON.stringify(card.blocks)).not.toContain('postdeck_approve');
    expect(await auditOf(postId, 'post.rejected')).toMatchObject([
      { surface: 'slack', actor: { type: 'api_key' }, chatUser: { platform: 'slack', id: 'U0ANA', name: 'ana' } },
    ]);
  });

  it("refuses a non-approver's clicks only to them and changes nothing", SLOW, async () => {
    const { postId, card } = await draftWithCard('Not yours to approve');
    const before = card.edits.length;
    for (const action of ['postdeck_approve', 'postdeck_reject', 'postdeck_schedule', 'postdeck_edit']) {
      const click = await clickCard(s, card, EVE, action, postId);
      const refusal = await eventually(() => s.slack.state.responses.get(click.responseId)?.[0]);
      expect(refusal).toMatchObject({ response_type: 'ephemeral', replace_original: false });
      expect(String(refusal.text)).toContain('not one of this workspace');
      expect(s.slack.state.views.find((v) => v.triggerId === click.triggerId)).toBeUndefined();
    }
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(card.edits.length).toBe(before);
    expect(await runCommand(s, 'approvers add <@U0EVE|eve>', EVE)).toContain('not one of');
  });

  it('publishes once when two approvers click at once and one double-clicks', SLOW, async () => {
    const { postId, card } = await draftWithCard('Everyone approves at once');
    const clicks = await Promise.all([
      clickCard(s, card, ANA, 'postdeck_approve', postId),
      clickCard(s, card, ANA, 'postdeck_approve', postId),
      clickCard(s, card, BEN, 'postdeck_approve', postId),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200, 200]);
    await eventually(async () => (await stateOf(postId)) === 'PUBLISHED', 60_000);
    const refusals = await eventually(() => {
      const answers = clicks.flatMap((c) => s.slack.state.responses.get(c.responseId) ?? []);
      return answers.length >= 2 ? answers : null;
    });
    expect(refusals.map((r) => String(r.text))).toEqual([
      expect.stringContaining('Someone got there first'),
      expect.stringContaining('Someone got there first'),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await tiktokPostsWith('Everyone approves at once')).toHaveLength(1);
    expect(await w.t.deps.db.publishAttempts.countDocuments({ postId })).toBe(1);
    const replies = s.slack.state.channel(ANA.channelId).filter((m) => m.threadTs === card.ts);
    expect(replies).toHaveLength(1);
    expect(JSON.stringify(card.blocks).match(/approved: publishing now/g)).toHaveLength(1);
  });
});
