import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Scope } from '../../src/core/context.js';
import { AppError } from '../../src/core/errors.js';
import { requestFingerprint } from '../../src/core/idempotency/fingerprint.js';
import { idempotencyKeyId } from '../../src/core/idempotency/key.js';
import { purgeExpiredIdempotencyKeys, purgeExpiredIdempotencyKeysJob } from '../../src/core/idempotency/purge-job.js';
import { runIdempotent, type IdempotentOutcome } from '../../src/core/idempotency/run.js';
import { PERIODIC_JOBS } from '../../src/app/jobs.js';
import type { AppState } from '../../src/http/shared/context.js';
import { errorMiddleware } from '../../src/http/middleware/errors.js';
import { requestContext } from '../../src/http/middleware/request-context.js';
import { createPublicRouter } from '../../src/http/api/public-router.js';
import { defineOperation } from '../../src/core/operations/operation.js';
import { bindRest } from '../../src/http/api/rest-route.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';

type Tenant = Awaited<ReturnType<typeof buildTenant>>;
type Plan = 'ok' | 'crash' | 'limited';

// Routes of a second app on the same router pipeline: they fail on demand, which no real route does.
const plan: Plan[] = [];
let runs = 0;
const widgetHints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const widgetRoutes = [
  bindRest(
    defineOperation({
      name: 'create_widget',
      title: 'Create a widget',
      summary: 'create a widget',
      input: z.object({ name: z.string().min(1), count: z.number().int() }),
      result: 'created',
      errors: ['invalid_request', 'rate_limited'],
      hints: widgetHints,
      run: (_deps, _scope, input) => {
        runs += 1;
        const next = plan.shift() ?? 'ok';
        if (next === 'crash') return Promise.reject(new Error('database went away'));
        if (next === 'limited') return Promise.reject(new AppError('rate_limited', 'slow down', undefined, 7));
        return Promise.resolve({ run: runs, ...input });
      },
    }),
    { method: 'post', path: '/widgets', status: 201, tag: 'Test', idempotent: true },
  ),
  bindRest(
    defineOperation({
      name: 'publish_widget',
      title: 'Publish a widget',
      summary: 'publish a widget',
      input: z.object({ id: z.string() }),
      result: 'published',
      errors: [],
      hints: widgetHints,
      run: (_deps, _scope, input) => Promise.resolve({ published: input.id }),
    }),
    { method: 'post', path: '/widgets/:id/publish', status: 200, tag: 'Test', idempotent: true },
  ),
];

const { t, server } = await useTestServer();
let widgets: RunningHttpServer;
beforeAll(async () => {
  const koa = new Koa<AppState>();
  koa.silent = true;
  koa.use(requestContext(t.deps.logger));
  koa.use(errorMiddleware(t.deps.logger));
  koa.use(createPublicRouter(t.deps, widgetRoutes, 1024 * 1024).routes());
  widgets = await startHttpServer(koa, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await widgets.stop();
});

/** POST /media/folders, with an Idempotency-Key when `key` is given. */
function createFolder(tenant: Tenant, body: unknown, key?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== undefined) headers['idempotency-key'] = key;
  return server.request('/public/v1/media/folders', {
    method: 'POST',
    apiKey: tenant.apiKey,
    headers,
    body: JSON.stringify(body),
  });
}

function postWidget(tenant: Tenant, path: string, body: string, key: string): Promise<Response> {
  return fetch(`${widgets.url}/public/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
    body,
  });
}

async function folderNames(tenant: Tenant): Promise<string[]> {
  const response = await server.request('/public/v1/media/folders', { apiKey: tenant.apiKey });
  return ((await response.json()) as { folders: { name: string }[] }).folders.map((folder) => folder.name);
}

/** Status, replay marker and body text: what must repeat exactly. */
async function snapshot(response: Response): Promise<{ status: number; replayed: string | null; text: string }> {
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    text: await response.text(),
  };
}

function countRecords(filter: Record<string, unknown> = {}): Promise<number> {
  return t.db.collection('idempotency').countDocuments(filter);
}

function scopeOf(tenant: Tenant): Scope {
  return { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } };
}

describe('an idempotent route (POST /media/folders)', () => {
  it('answers a repeated request with the first response and creates one folder', async () => {
    const tenant = await buildTenant(t.deps);
    const first = await snapshot(await createFolder(tenant, { name: 'Launch' }, 'key-1'));
    expect(first).toMatchObject({ status: 201, replayed: null });
    expect(JSON.parse(first.text)).toMatchObject({ name: 'Launch' });
    expect(first.text).not.toContain('\n');

    const again = await snapshot(await createFolder(tenant, { name: 'Launch' }, 'key-1'));
    expect(again).toEqual({ ...first, replayed: 'true' });
    expect(await folderNames(tenant)).toEqual(['Launch']);
  });

  it('refuses the same key with a different body, and keeps replaying the first', async () => {
    const tenant = await buildTenant(t.deps);
    const first = await snapshot(await createFolder(tenant, { name: 'One' }, 'shared'));
    const other = await createFolder(tenant, { name: 'Two' }, 'shared');
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ code: 'idempotency_key_reused', message: expect.any(String) });
    expect(await folderNames(tenant)).toEqual(['One']);
    expect(await snapshot(await createFolder(tenant, { name: 'One' }, 'shared'))).toEqual({
      ...first,
      replayed: 'true',
    });
  });

  it('gives twenty concurrent requests with one key one folder and twenty identical responses', async () => {
    const tenant = await buildTenant(t.deps);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => createFolder(tenant, { name: 'Concurrent' }, 'burst')),
    );
    const snapshots = await Promise.all(responses.map(snapshot));
    const first = snapshots[0]!;
    expect(first.status).toBe(201);
    for (const each of snapshots) {
      expect(each.status).toBe(201);
      expect(Buffer.from(each.text).equals(Buffer.from(first.text))).toBe(true);
    }
    expect(snapshots.filter((each) => each.replayed === null)).toHaveLength(1);
    expect(await folderNames(tenant)).toEqual(['Concurrent']);
    const keyId = idempotencyKeyId(tenant.workspaceId, 'burst');
    expect(await countRecords({ keyId, kind: 'attempt' })).toBe(1);
  });

  it('keeps keys apart per workspace', async () => {
    const [a, b] = [await buildTenant(t.deps), await buildTenant(t.deps)];
    const fromA = await createFolder(a, { name: 'Same' }, 'everyone-uses-this');
    const fromB = await createFolder(b, { name: 'Same' }, 'everyone-uses-this');
    expect([fromA.status, fromB.status]).toEqual([201, 201]);
    expect(fromB.headers.get('idempotent-replayed')).toBeNull();
    const [folderA, folderB] = [(await fromA.json()) as { id: string }, (await fromB.json()) as { id: string }];
    expect(folderA.id).not.toBe(folderB.id);
    expect(await folderNames(a)).toEqual(['Same']);
    expect(await folderNames(b)).toEqual(['Same']);
  });

  it('answers a schema failure with the same 400 each time without spending the key', async () => {
    const tenant = await buildTenant(t.deps);
    const first = await snapshot(await createFolder(tenant, { name: '' }, 'fix-me'));
    expect(first.status).toBe(400);
    expect(JSON.parse(first.text)).toMatchObject({ code: 'invalid_request', details: [{ path: ['body', 'name'] }] });
    expect(await snapshot(await createFolder(tenant, { name: '' }, 'fix-me'))).toEqual(first);
    expect(await countRecords({ keyId: idempotencyKeyId(tenant.workspaceId, 'fix-me') })).toBe(0);
    // The corrected request is the key's first real use.
    expect((await createFolder(tenant, { name: 'Fixed' }, 'fix-me')).status).toBe(201);
  });

  it('keeps a client error of the handler and replays it, even when it would now succeed', async () => {
    const tenant = await buildTenant(t.deps);
    const existing = (await (await createFolder(tenant, { name: 'Taken' })).json()) as { id: string };
    const first = await snapshot(await createFolder(tenant, { name: 'Taken' }, 'late'));
    expect(first.status).toBe(409);
    expect(JSON.parse(first.text)).toMatchObject({ code: 'conflict' });

    const deleted = await server.request(`/public/v1/media/folders/${existing.id}`, {
      method: 'DELETE',
      apiKey: tenant.apiKey,
    });
    expect(deleted.status).toBe(204);
    expect(await snapshot(await createFolder(tenant, { name: 'Taken' }, 'late'))).toEqual({
      ...first,
      replayed: 'true',
    });
    expect(await folderNames(tenant)).toEqual([]);
  });

  it('takes over a key whose executor crashed once its attempt has expired', async () => {
    const tenant = await buildTenant(t.deps);
    const keyId = idempotencyKeyId(tenant.workspaceId, 'orphan');
    const fingerprint = requestFingerprint({
      method: 'post',
      route: '/media/folders',
      params: undefined,
      query: undefined,
      body: { name: 'Recovered' },
    });
    const bindingId = randomUUID();
    const past = new Date(Date.now() - 5 * 60_000);
    await t.db.collection('idempotency').insertMany([
      {
        _id: keyId as never,
        kind: 'key',
        keyId,
        bindingId,
        workspaceId: tenant.workspaceId,
        fingerprint,
        createdAt: past,
      },
      {
        _id: `${bindingId}#0` as never,
        kind: 'attempt',
        keyId,
        attempt: 0,
        holder: 'crashed-process',
        expiresAt: new Date(past.getTime() + 60_000),
        releasedAt: null,
        createdAt: past,
      },
    ]);

    const response = await createFolder(tenant, { name: 'Recovered' }, 'orphan');
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(await folderNames(tenant)).toEqual(['Recovered']);
    const takeover = await t.db.collection('idempotency').findOne({ _id: `${bindingId}#1` as never });
    expect(takeover).toMatchObject({ kind: 'attempt', attempt: 1 });
    expect(takeover?.['holder']).not.toBe('crashed-process');
  });

  it('behaves as before without a key', async () => {
    const tenant = await buildTenant(t.deps);
    expect((await createFolder(tenant, { name: 'Plain' })).status).toBe(201);
    const again = await createFolder(tenant, { name: 'Plain' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'conflict' });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await countRecords({ workspaceId: tenant.workspaceId })).toBe(0);
  });

  it('rejects a malformed key with invalid_request and accepts one of 255 characters', async () => {
    const tenant = await buildTenant(t.deps);
    for (const key of ['', 'k'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const response = await createFolder(tenant, { name: 'Never' }, key);
      expect(response.status, JSON.stringify(key)).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'invalid_request',
        details: [{ path: ['headers', 'idempotency-key'] }],
      });
    }
    expect(await folderNames(tenant)).toEqual([]);
    expect((await createFolder(tenant, { name: 'Long key' }, `${'k'.repeat(254)}~`)).status).toBe(201);
  });

  it('checks the API key before anything about idempotency', async () => {
    const before = await countRecords();
    const anonymous = await server.request('/public/v1/media/folders', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': '' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'missing_api_key' });
    const wrong = await server.request('/public/v1/media/folders', {
      method: 'POST',
      apiKey: `service_sk_${'A'.repeat(43)}`,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'fine-key' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'invalid_api_key' });
    expect(await countRecords()).toBe(before);
  });

  it('documents the header and its errors in OpenAPI', async () => {
    const document = (await (await server.request('/public/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: object }>>;
    };
    const create = document.paths['/public/v1/media/folders']!['post']!;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    expect(JSON.stringify(create.responses)).toContain('idempotency_key_reused');
    const list = document.paths['/public/v1/media/folders']!['get']!;
    expect(list.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: 'Idempotency-Key' }));
  });
});

describe('outcomes that must not stick to a key', () => {
  it('lets a retry run after a 5xx, then replays its success', async () => {
    const tenant = await buildTenant(t.deps);
    plan.push('crash');
    const crashed = await postWidget(tenant, '/widgets', '{"name":"w","count":1}', 'retry-me');
    expect(crashed.status).toBe(500);
    expect(await crashed.json()).toMatchObject({ code: 'internal_error' });

    const runsBefore = runs;
    // Keys of the body in another order are the same request.
    const retried = await snapshot(await postWidget(tenant, '/widgets', '{"count":1,"name":"w"}', 'retry-me'));
    expect(retried.status).toBe(201);
    expect(retried.replayed).toBeNull();
    expect(JSON.parse(retried.text)).toEqual({ run: runsBefore + 1, name: 'w', count: 1 });
    expect(await snapshot(await postWidget(tenant, '/widgets', '{"name":"w","count":1}', 'retry-me'))).toEqual({
      ...retried,
      replayed: 'true',
    });
    expect(runs).toBe(runsBefore + 1);
  });

  it('does not keep a rate limit', async () => {
    const tenant = await buildTenant(t.deps);
    plan.push('limited');
    const limited = await postWidget(tenant, '/widgets', '{"name":"r","count":2}', 'limited');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await postWidget(tenant, '/widgets', '{"name":"r","count":2}', 'limited')).status).toBe(201);
  });

  it('treats the same key on another operation as reused', async () => {
    const tenant = await buildTenant(t.deps);
    expect((await postWidget(tenant, '/widgets/a/publish', '', 'one-op')).status).toBe(200);
    const otherId = await postWidget(tenant, '/widgets/b/publish', '', 'one-op');
    expect(otherId.status).toBe(409);
    expect(await otherId.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const otherRoute = await postWidget(tenant, '/widgets', '{"name":"x","count":3}', 'one-op');
    expect(await otherRoute.json()).toMatchObject({ code: 'idempotency_key_reused' });
  });
});

describe('waiting for a running executor (core)', () => {
  const success: IdempotentOutcome = { type: 'success', status: 201, body: '{"ok":true}' };

  async function bindWithLiveAttempt(tenant: Tenant, key: string, fingerprint: string, expiresInMs: number) {
    const keyId = idempotencyKeyId(tenant.workspaceId, key);
    const bindingId = randomUUID();
    const now = new Date();
    await t.db.collection('idempotency').insertMany([
      {
        _id: keyId as never,
        kind: 'key',
        keyId,
        bindingId,
        workspaceId: tenant.workspaceId,
        fingerprint,
        createdAt: now,
      },
      {
        _id: `${bindingId}#0` as never,
        kind: 'attempt',
        keyId,
        attempt: 0,
        holder: 'slow-or-dead',
        expiresAt: new Date(now.getTime() + expiresInMs),
        releasedAt: null,
        createdAt: now,
      },
    ]);
  }

  it('takes over when the running attempt expires without a heartbeat', async () => {
    const tenant = await buildTenant(t.deps);
    await bindWithLiveAttempt(tenant, 'stalled', 'fp', 400);
    let executed = 0;
    const started = Date.now();
    const result = await runIdempotent(t.deps, scopeOf(tenant), { key: 'stalled', fingerprint: 'fp' }, () => {
      executed += 1;
      return Promise.resolve(success);
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(result).toEqual({ outcome: success, replayed: false });
    expect(executed).toBe(1);
  });

  it('gives up with a 409 conflict and Retry-After when the executor outlasts the wait limit', async () => {
    const tenant = await buildTenant(t.deps);
    await bindWithLiveAttempt(tenant, 'busy', 'fp', 60_000);
    let executed = 0;
    const error = await runIdempotent(
      t.deps,
      scopeOf(tenant),
      { key: 'busy', fingerprint: 'fp' },
      () => {
        executed += 1;
        return Promise.resolve(success);
      },
      { waitLimitMs: 300 },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'conflict', retryAfterSeconds: 5 });
    expect(executed).toBe(0);
  });

  it('renews a long-running attempt so nobody takes it over', async () => {
    const tenant = await buildTenant(t.deps);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let executed = 0;
    const execute = async (): Promise<IdempotentOutcome> => {
      executed += 1;
      await gate;
      return success;
    };
    const request = { key: 'long', fingerprint: 'fp' };
    // A TTL a busy machine's pauses stay well inside, so only a missing heartbeat lets it lapse.
    const options = { attemptTtlMs: 1_000, waitLimitMs: 30_000 };
    const first = runIdempotent(t.deps, scopeOf(tenant), request, execute, options);
    await expect.poll(() => executed, { timeout: 30_000 }).toBe(1);
    const second = runIdempotent(t.deps, scopeOf(tenant), request, execute, options);
    // Several TTLs pass while the first executor runs; its heartbeat keeps the second waiting.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    release();
    expect(await first).toEqual({ outcome: success, replayed: false });
    expect(await second).toEqual({ outcome: success, replayed: true });
    expect(executed).toBe(1);
  });
});

describe('the purge', () => {
  it('runs every 15 minutes', () => {
    expect(PERIODIC_JOBS).toContainEqual({ definition: purgeExpiredIdempotencyKeysJob, everyMs: 15 * 60_000 });
  });

  it('removes keys older than 24 hours with everything they hold, and only those', async () => {
    const tenant = await buildTenant(t.deps);
    expect((await createFolder(tenant, { name: 'Old' }, 'old-key')).status).toBe(201);
    const kept = await snapshot(await createFolder(tenant, { name: 'Recent' }, 'new-key'));
    const oldKeyId = idempotencyKeyId(tenant.workspaceId, 'old-key');
    const newKeyId = idempotencyKeyId(tenant.workspaceId, 'new-key');
    // The binding is 25 hours old; its attempt and outcome stay recent, as for a late first execution.
    await t.db
      .collection('idempotency')
      .updateOne({ _id: oldKeyId as never }, { $set: { createdAt: new Date(Date.now() - 25 * 3_600_000) } });
    expect(await countRecords({ keyId: oldKeyId })).toBe(3);

    expect(await purgeExpiredIdempotencyKeys(t.deps)).toBe(1);
    expect(await countRecords({ keyId: oldKeyId })).toBe(0);
    expect(await countRecords({ keyId: newKeyId })).toBe(3);

    // The old key is free again (a new request, so a new folder); the recent one still replays.
    expect((await createFolder(tenant, { name: 'Old again' }, 'old-key')).status).toBe(201);
    expect(await snapshot(await createFolder(tenant, { name: 'Recent' }, 'new-key'))).toEqual({
      ...kept,
      replayed: 'true',
    });
  });
});
