import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatedInteraction } from '../../src/emulators/discord/server.js';
import { createLogger } from '../../src/logger.js';
import { startWorld, type PublishingWorld, SLOW } from '../publishing/support.js';
import {
  commandReply,
  draftWithCard,
  linkGuild,
  member,
  startDiscordWorld,
  type DiscordWorld,
} from './discord-support.js';

// Every log line of the world (core and the Discord bot), to see that nothing is logged above warn.
const lines: { level: number; msg: string }[] = [];
const WARN = 40;
const aboveWarn = () => lines.filter((line) => line.level > WARN).map((line) => line.msg);

let w: PublishingWorld;
let d: DiscordWorld;
const ANA_ID = '210000000000000001';
const EPHEMERAL = 64;

beforeAll(async () => {
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
  });
  w = await startWorld({ logger });
  d = await startDiscordWorld(w);
  const ana = member(d, ANA_ID, 'ana');
  await linkGuild(w, d, ana);
  await commandReply(d, await d.sender.command(ana, ['approvals', 'here']), 'Draft approvals now go to');
}, 120_000);
afterAll(async () => {
  await d?.close();
  await w?.close();
});

const stateOf = async (postId: string) => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state;

/** `base` delivered again as a new interaction (its own id), its payload changed by `change`. */
let counter = 0;
function variant(base: EmulatedInteraction, change: Record<string, unknown>): EmulatedInteraction {
  counter += 1;
  const id = `${base.id.slice(0, -3)}${String(counter).padStart(3, '0')}`;
  return { ...base, id, payload: { ...base.payload, id, ...change } };
}

describe('every signed Discord interaction is answered', () => {
  it('answers a button Postdeck no longer has privately, and changes nothing', SLOW, async () => {
    const { postId, card } = await draftWithCard(w, d, 'An old Discord card');
    const versions = card.edits.length;
    const click = await d.sender.click(member(d, ANA_ID, 'ana'), card, `postdeck:publish-now:${postId}`);
    expect(click.status).toBe(200);
    expect(click.body).toMatchObject({
      type: 4,
      data: { flags: EPHEMERAL, content: expect.stringMatching(/no longer supported/) },
    });
    expect(click.interaction.response?.problems).toEqual([]);
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(card.edits.length).toBe(versions);
    expect(aboveWarn()).toEqual([]);
  });

  it('answers a form Postdeck no longer has privately', SLOW, async () => {
    const { postId, card } = await draftWithCard(w, d, 'A Discord form from an old card');
    const click = await d.sender.click(member(d, ANA_ID, 'ana'), card, `postdeck:edit:${postId}`);
    const submitted = await d.sender.submitModal(member(d, ANA_ID, 'ana'), click, { caption: 'Changed' });
    const old = await d.sender.resend(
      variant(submitted.interaction, {
        data: { ...(submitted.interaction.payload.data as object), custom_id: `postdeck:caption-form:${postId}` },
      }),
    );
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({
      type: 4,
      data: { flags: EPHEMERAL, content: expect.stringMatching(/no longer/) },
    });
    expect(aboveWarn()).toEqual([]);
  });

  it('answers signed interactions it cannot read with 200 and a private message, never a 500', SLOW, async () => {
    const { postId, card } = await draftWithCard(w, d, 'A Discord card clicked by a broken client');
    const click = await d.sender.click(member(d, ANA_ID, 'ana'), card, 'postdeck:unknown');
    const malformed: Record<string, unknown>[] = [
      { data: undefined },
      { data: 'nope' },
      { data: { component_type: 2 } },
      { data: { custom_id: 5, component_type: 2 } },
      { type: 5, data: { custom_id: `postdeck:edit-form:${postId}`, components: 'nope' } },
      { type: 5, data: { custom_id: `postdeck:edit-form:${postId}`, components: [null] } },
      { type: 5, data: { custom_id: `postdeck:edit-form:${postId}`, components: [{ type: 18 }] } },
      {
        type: 5,
        data: {
          custom_id: `postdeck:edit-form:${postId}`,
          components: [{ type: 18, component: { type: 4, custom_id: 'caption', value: 7 } }],
        },
      },
      { type: 2, data: { name: 'postdeck', options: 'nope' } },
      { type: 99 },
      { type: undefined },
      { message: 'nope' },
    ];
    for (const change of malformed) {
      const sent = await d.sender.resend(variant(click.interaction, change));
      expect({ change, status: sent.status }).toEqual({ change, status: 200 });
      expect(sent.body).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    }
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(aboveWarn()).toEqual([]);
  });
});
