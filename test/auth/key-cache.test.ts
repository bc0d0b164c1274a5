import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, revokeApiKey } from '../../src/core/auth/api-keys.js';
import { ApiKeyCache } from '../../src/core/auth/key-cache.js';
import type { CoreDeps } from '../../src/core/context.js';
import { hashSecret } from '../../src/core/identity/tokens.js';
import { openTestDatabase, watchCommands, type TestDatabase, type WatchedDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';

let t: TestDatabase;
let watched: WatchedDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
  watched = await watchCommands(t);
});
afterAll(async () => {
  await watched.close();
  await t.close();
});

/** Core deps as another process has them: its own key cache, its own connection (watched). */
function replica(): CoreDeps {
  const db = watched.db;
  return { ...t.deps, db, keyCache: new ApiKeyCache(db, t.deps.logger) };
}

/** A replica on a connection of its own, so the commands seen are its cache's alone. */
async function withOwnConnection(run: (deps: CoreDeps, commands: CommandStartedEvent[]) => Promise<void>) {
  const own = await watchCommands(t);
  try {
    await run({ ...t.deps, db: own.db, keyCache: new ApiKeyCache(own.db, t.deps.logger) }, own.commands);
  } finally {
    await own.close();
  }
}

function revisionReads(commands: CommandStartedEvent[]): number {
  return commands.filter((c) => c.commandName === 'find' && c.command.find === 'api_key_revisions').length;
}

function scopeOf(tenant: { workspaceId: string; accountId: string }) {
  return { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } as const };
}

describe('API key verification', () => {
  it('answers a key it verified before without a database round trip', async () => {
    const tenant = await buildTenant(t.deps);
    const deps = replica();
    watched.commands.length = 0;
    for (let i = 0; i < 50; i++) {
      expect((await authenticateApiKey(deps, tenant.apiKey)).workspaceId).toBe(tenant.workspaceId);
    }
    const reads = watched.commands.filter((c) => c.commandName === 'find').map((c) => c.command.find as string);
    // One secret lookup and one key read; the revision is reread at most twice a second.
    expect(reads.filter((name) => name === 'secret_lookups' || name === 'api_keys')).toHaveLength(2);
    expect(reads.filter((name) => name === 'api_key_revisions').length).toBeLessThan(10);
    expect(watched.commands.filter((c) => c.commandName === 'update')).toHaveLength(0);
  });

  it('refuses a revoked key on its next use on every replica, answered from cache or not', async () => {
    const tenant = await buildTenant(t.deps);
    const [a, b] = [replica(), replica()];
    await authenticateApiKey(a, tenant.apiKey);
    await authenticateApiKey(b, tenant.apiKey);
    const key = await t.deps.db.apiKeys.findOne({ workspaceId: tenant.workspaceId });
    await revokeApiKey(a, scopeOf(tenant), key!._id);
    await expect(authenticateApiKey(b, tenant.apiKey)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(authenticateApiKey(a, tenant.apiKey)).rejects.toMatchObject({ code: 'invalid_api_key' });
    // A key of another workspace, cached before, is verified again and still works.
    const other = await buildTenant(t.deps);
    expect((await authenticateApiKey(b, other.apiKey)).workspaceId).toBe(other.workspaceId);
  });

  it('does not remember a key read before a revocation that landed meanwhile', async () => {
    const tenant = await buildTenant(t.deps);
    const cache = new ApiKeyCache(t.deps.db, t.deps.logger);
    const hash = hashSecret(tenant.apiKey);
    const before = await cache.lookup(hash);
    expect(before.key).toBeUndefined();
    await cache.revoked(new Date());
    const key = { keyId: 'k', workspaceId: tenant.workspaceId, accountId: tenant.accountId, userId: null };
    cache.remember(hash, key, before.generation);
    expect((await cache.lookup(hash)).key).toBeUndefined();
  });

  it('reads nothing from its timer once closed, even for a request drained after the close', async () => {
    await withOwnConnection(async (deps, commands) => {
      const tenant = await buildTenant(t.deps);
      await authenticateApiKey(deps, tenant.apiKey);
      await deps.keyCache.close();
      // A request still being drained looks its key up after the close (shutdown closes the cache first).
      await authenticateApiKey(deps, tenant.apiKey);
      commands.length = 0;
      // Six reread periods: a live cache in use rereads every 250 ms.
      await sleep(1_500);
      expect(revisionReads(commands)).toBe(0);
    });
  });

  it('keeps rereading while keys are in use, a usage write notwithstanding', async () => {
    await withOwnConnection(async (deps, commands) => {
      const tenant = await buildTenant(t.deps);
      await authenticateApiKey(deps, tenant.apiKey);
      await deps.keyCache.flush();
      commands.length = 0;
      await sleep(1_500);
      expect(revisionReads(commands)).toBeGreaterThan(0);
      await deps.keyCache.close();
    });
  });

  it('writes last-used times in one batch, once a minute per key', async () => {
    const tenants = await Promise.all([buildTenant(t.deps), buildTenant(t.deps), buildTenant(t.deps)]);
    const deps = replica();
    for (let i = 0; i < 10; i++) for (const tenant of tenants) await authenticateApiKey(deps, tenant.apiKey);
    watched.commands.length = 0;
    await deps.keyCache.flush();
    expect(watched.commands.filter((c) => c.commandName === 'update')).toHaveLength(1);
    const keys = await t.deps.db.apiKeys.find({ workspaceId: { $in: tenants.map((x) => x.workspaceId) } }).toArray();
    const usage = await t.deps.db.apiKeyUsage.find({ _id: { $in: keys.map((k) => k._id) } }).toArray();
    expect(usage).toHaveLength(3);
    // Used again within the minute: nothing more to write.
    for (const tenant of tenants) await authenticateApiKey(deps, tenant.apiKey);
    watched.commands.length = 0;
    await deps.keyCache.flush();
    expect(watched.commands.filter((c) => c.commandName === 'update')).toHaveLength(0);
  });
});

describe('revocation through HTTP on two servers of one database', () => {
  let servers: TestServer[];
  beforeAll(async () => {
    servers = [await startTestServer(t), await startTestServer({ ...t, deps: replica() })];
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it('a key revoked through one server answers 401 on the other at once', async () => {
    const tenant = await buildTenant(t.deps);
    const [one, two] = servers as [TestServer, TestServer];
    for (const server of servers) {
      expect((await server.request('/public/v1/platforms', { apiKey: tenant.apiKey })).status).toBe(200);
    }
    const revoked = await one.request('/auth/key', { method: 'DELETE', apiKey: tenant.apiKey });
    expect(revoked.status).toBe(204);
    const answer = await two.request('/public/v1/platforms', { apiKey: tenant.apiKey });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ code: 'invalid_api_key' });
  });
});
