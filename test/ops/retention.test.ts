import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryDoc } from '../../src/core/audit/documents.js';
import { purgeExpiredRecords } from '../../src/core/retention/purge.js';
import type { WebhookDeliveryDoc } from '../../src/core/webhooks/documents.js';
import { loadConfig } from '../../src/config.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { waitUntil } from '../../bench/support/webhook-receiver.js';

// Webhook deliveries and audit entries do not grow without bound: what is past its retention goes,
// what is younger (or still being delivered) stays. The embedded FerretDB refuses TTL indexes
// ("Index option expireAfterSeconds is not implemented yet"), so a worker's periodic job deletes.
const DAY = 24 * 3_600_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

function auditEntry(id: string, workspaceId: string, at: Date): AuditEntryDoc {
  return {
    _id: id,
    workspaceId,
    action: 'plan.changed',
    actor: { type: 'system' },
    surface: 'system',
    subject: { type: 'account', id: 'account-1' },
    at,
    details: {},
  };
}

function delivery(id: string, state: WebhookDeliveryDoc['state'], windowStart: Date): WebhookDeliveryDoc {
  return {
    _id: id,
    workspaceId: 'ws-1',
    endpointId: 'endpoint-1',
    eventId: `${id}:post.published`,
    type: 'post.published',
    subjectId: id,
    eventAt: windowStart,
    body: '{}',
    state,
    attempts: 1,
    history: [],
    nextAttemptAt: state === 'pending' ? new Date() : null,
    windowStart,
    createdAt: windowStart,
  };
}

const ids = async (t: TestDatabase) => ({
  audit: (await t.deps.db.audit.find({}).toArray()).map((doc) => doc._id).sort(),
  deliveries: (await t.deps.db.webhookDeliveries.find({}).toArray()).map((doc) => doc._id).sort(),
});

describe('the retention settings', () => {
  const cwd = () => mkdtempSync(path.join(os.tmpdir(), 'postdeck-config-'));
  it('keep deliveries 30 days and audit entries 400 by default; 0 keeps them forever', () => {
    expect(loadConfig({}, { cwd: cwd() }).retention).toEqual({ webhookDeliveryDays: 30, auditDays: 400 });
    const set = { WEBHOOK_DELIVERY_RETENTION_DAYS: '7', AUDIT_RETENTION_DAYS: '0' };
    expect(loadConfig(set, { cwd: cwd() }).retention).toEqual({ webhookDeliveryDays: 7, auditDays: 0 });
  });

  it('refuse a negative or fractional number of days, naming the variable', () => {
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: '-1' }, { cwd: cwd() })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '1.5' }, { cwd: cwd() })).toThrow(
      /WEBHOOK_DELIVERY_RETENTION_DAYS/,
    );
  });
});

describe('the purge', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase();
  });
  afterAll(async () => {
    await t.close();
  });

  it('removes entries and settled deliveries past their age, in batches; keeps younger and pending ones', async () => {
    await t.deps.db.audit.insertMany([
      ...['a', 'b', 'c', 'd', 'e'].map((n) => auditEntry(`old-${n}`, `ws-${n}`, daysAgo(401))),
      auditEntry('young', 'ws-a', daysAgo(399)),
    ]);
    await t.deps.db.webhookDeliveries.insertMany([
      delivery('old-delivered', 'delivered', daysAgo(31)),
      delivery('old-failed', 'failed', daysAgo(31)),
      delivery('old-but-pending', 'pending', daysAgo(31)),
      delivery('young-delivered', 'delivered', daysAgo(29)),
    ]);
    // Nothing goes while the operator keeps everything.
    const forever = { ...t.deps, retention: { webhookDeliveryDays: 0, auditDays: 0 } };
    expect(await purgeExpiredRecords(forever, 2)).toEqual({ webhookDeliveries: 0, auditEntries: 0 });

    expect(await purgeExpiredRecords(t.deps, 2)).toEqual({ webhookDeliveries: 2, auditEntries: 5 });
    expect(await ids(t)).toEqual({ audit: ['young'], deliveries: ['old-but-pending', 'young-delivered'] });
    expect(await purgeExpiredRecords(t.deps, 2)).toEqual({ webhookDeliveries: 0, auditEntries: 0 });
  });
});

describe("a worker's housekeeping", () => {
  it('runs the purge on its own', async () => {
    const t = await openTestDatabase({ recurring: true });
    try {
      await t.deps.db.audit.insertMany([
        auditEntry('old', 'ws-1', daysAgo(500)),
        auditEntry('young', 'ws-1', daysAgo(1)),
      ]);
      await t.deps.db.webhookDeliveries.insertOne(delivery('old-delivered', 'delivered', daysAgo(60)));
      await t.startWorker();
      await waitUntil(
        async () => (await t.deps.db.periodicRuns.findOne({ _id: 'retention.purge' })) !== null,
        'the purge ran',
        120_000,
      );
      expect(await ids(t)).toEqual({ audit: ['young'], deliveries: [] });
    } finally {
      await t.close();
    }
  }, 150_000);
});
