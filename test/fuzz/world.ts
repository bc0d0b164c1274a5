import fc from 'fast-check';
import { startOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { emulatorAiConfig } from '../support/ai.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser } from '../support/identity.js';
import { buildMedia, makeJpeg, upload } from '../support/media.js';
import { buildPost, call, connectedPlatform, DIRECT } from '../support/posts.js';
import { startTikTokFixture } from '../support/tiktok.js';

/** The kinds of id the API takes; a name (`platformIds`, `mediaId`, path `id`) maps to one. */
export type IdKind = 'platform' | 'media' | 'folder' | 'post' | 'job' | 'workspace' | 'secret';

/**
 * Ids the fuzzer draws from: the fixture's own (never deleted, so every run has something to act
 * on), those the fuzz made (fair game for deletes), and another workspace's (must stay invisible).
 */
export class IdPools {
  private readonly fixture = new Map<IdKind, string[]>();
  private readonly made = new Map<IdKind, string[]>();
  private readonly other = new Map<IdKind, string[]>();

  addFixture(kind: IdKind, id: string): void {
    this.fixture.set(kind, [...(this.fixture.get(kind) ?? []), id]);
  }
  addMade(kind: IdKind, id: string): void {
    const made = this.made.get(kind) ?? [];
    if (!made.includes(id) && !(this.fixture.get(kind) ?? []).includes(id))
      this.made.set(kind, [...made, id].slice(-50));
  }
  addOther(kind: IdKind, id: string): void {
    this.other.set(kind, [...(this.other.get(kind) ?? []), id]);
  }
  /** Forgets an id the fuzz deleted, so later requests mostly name what exists. */
  forget(kind: IdKind, id: string): void {
    this.made.set(
      kind,
      (this.made.get(kind) ?? []).filter((each) => each !== id),
    );
  }
  isOther(id: string): boolean {
    return [...this.other.values()].some((ids) => ids.includes(id));
  }

  /** Ids of `kind`: mostly ours, some another workspace's, some random; a delete never gets a fixture id. */
  arbitrary(kind: IdKind, destructive: boolean): fc.Arbitrary<string> {
    const ours = [...(destructive ? [] : (this.fixture.get(kind) ?? [])), ...(this.made.get(kind) ?? [])];
    const theirs = this.other.get(kind) ?? [];
    const choices: fc.WeightedArbitrary<string>[] = [
      { weight: 1, arbitrary: fc.uuid() },
      // Well-formed hex that is no RFC 9562 uuid (version 0): valid only where a schema says just `format: uuid`.
      { weight: 1, arbitrary: fc.constant('00000000-0000-0000-0000-000000000001') },
    ];
    // Lists of ids (slides, media) fail on their first stranger, so strangers stay rare.
    if (ours.length > 0) choices.push({ weight: 12, arbitrary: fc.constantFrom(...ours) });
    if (theirs.length > 0) choices.push({ weight: 1, arbitrary: fc.constantFrom(...theirs) });
    return fc.oneof(...choices);
  }
}

/** Which kind of id a property or parameter name holds, if any. */
export function idKindOfName(name: string): IdKind | undefined {
  const lower = name.toLowerCase();
  if (lower.includes('organization') || lower.includes('workspace')) return 'workspace';
  if (lower.includes('platform')) return 'platform';
  if (lower.includes('folder')) return 'folder';
  if (lower.includes('media')) return 'media';
  if (lower.includes('job')) return 'job';
  if (lower.includes('post')) return 'post';
  if (lower === 'secret') return 'secret';
  return undefined;
}

/** Which kind of id a bare `id` names, from the REST path or the tool name around it. */
export function idKindOfOperation(name: string): IdKind | undefined {
  if (/folder/.test(name)) return 'folder';
  if (/platform/.test(name)) return 'platform';
  if (/generat|job/.test(name)) return 'job';
  if (/media/.test(name)) return 'media';
  if (/post/.test(name)) return 'post';
  return undefined;
}

/** What the fuzz runs against: a real server over a test database, with the emulators behind it. */
export interface FuzzWorld {
  server: TestServer;
  t: TestDatabase;
  apiKey: string;
  /** A signed-in person's session (for the device approval endpoint). */
  session: string;
  ids: IdPools;
  /** Post settings the connected account accepts (read from its posting schema). */
  goodSettings: Record<string, unknown>;
  /** A real JPEG, for uploads. */
  jpeg: Buffer;
  stop(): Promise<void>;
}

/**
 * A workspace on the unlimited plan with a TikTok account connected on the emulator, two READY
 * images, a folder, a draft and a queued generation job; another workspace with its own of each.
 */
export async function startFuzzWorld(): Promise<FuzzWorld> {
  const [f, openai] = await Promise.all([startTikTokFixture(), startOpenAiEmulator()]);
  const t = await openTestDatabase({ tiktok: f.config, ai: emulatorAiConfig(openai, { attempts: 1 }) });
  const server = await startTestServer(t);
  const ids = new IdPools();
  const tenant = await buildTenant(t.deps, { plan: 'unlimited' });
  const platform = await connectedPlatform(t, f, tenant);
  ids.addFixture('platform', platform._id);
  ids.addFixture('workspace', tenant.workspaceId);
  const jpeg = await makeJpeg(1080, 1350);
  for (let i = 0; i < 2; i += 1) {
    const answer = await upload(server, tenant.apiKey, { bytes: jpeg, name: `fixture-${i}.jpg`, type: 'image/jpeg' });
    if (answer.status !== 201) throw new Error(`fixture upload answered ${answer.status}: ${await answer.text()}`);
    ids.addFixture('media', ((await answer.json()) as { id: string }).id);
  }
  const folder = await call(server, tenant.apiKey, 'POST', '/media/folders', { name: 'fixture folder' });
  ids.addFixture('folder', String(folder.body.id));
  const schema = await call(server, tenant.apiKey, 'GET', `/platforms/${platform._id}/schema`);
  const privacy = (schema.body.privacyLevelOptions as string[] | undefined)?.[0] ?? DIRECT.privacy_level;
  const goodSettings = { content_posting_method: 'DIRECT_POST', privacy_level: privacy };
  const mediaId = (await t.deps.db.media.findOne({ workspaceId: tenant.workspaceId }))!._id;
  const draft = await call(server, tenant.apiKey, 'POST', '/posts', {
    platformIds: [platform._id],
    content: 'fixture draft',
    mode: 'draft',
    mediaIds: [mediaId],
    settings: goodSettings,
  });
  if (draft.status !== 201) throw new Error(`fixture draft answered ${draft.status}: ${draft.text}`);
  for (const post of await t.deps.db.posts.find({ workspaceId: tenant.workspaceId }).toArray()) {
    ids.addFixture('post', post._id);
  }
  const job = await call(server, tenant.apiKey, 'POST', '/slides/generate', {
    platformIds: [platform._id],
    mode: 'draft',
    settings: goodSettings,
    slides: [{ index: 0, caption: 'fixture', imagePrompt: 'a cat' }],
  });
  if (job.status !== 202) throw new Error(`fixture job answered ${job.status}: ${job.text}`);
  ids.addFixture('job', String(job.body.jobId));

  const other = await buildTenant(t.deps);
  const otherPlatform = await buildPlatform(t.deps, other.workspaceId);
  ids.addOther('platform', otherPlatform._id);
  ids.addOther('workspace', other.workspaceId);
  ids.addOther('media', (await buildMedia(t.deps, other.workspaceId))._id);
  ids.addOther('post', (await buildPost(t.deps, other.workspaceId, { platformId: otherPlatform._id }))._id);
  const user = await buildUser(t.deps);
  ids.addFixture('workspace', user.workspaceId);

  return {
    server,
    t,
    apiKey: tenant.apiKey,
    session: user.session,
    ids,
    goodSettings,
    jpeg,
    async stop() {
      await server.stop();
      await t.close();
      await openai.stop();
      await f.emulator.stop();
    },
  };
}
