import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/core/audit/schema.js';
import { auditView } from '../../src/http/web/audit-view.js';

// The audit page names the network of an account entry from its details.provider.
function entry(provider: string | undefined): AuditEntry {
  return {
    id: `entry-${provider ?? 'old'}`,
    action: 'platform.connected',
    actor: { type: 'user', userId: 'u1', keyId: null, chatUser: null },
    surface: 'web',
    subject: { type: 'platform', id: '0f8fad5b-d9cb-469f-a165-70867728950e' },
    at: '2026-11-29T10:00:00.000Z',
    details: { ...(provider ? { provider } : {}), handle: 'coldbrew.club' },
  };
}

function render(entries: AuditEntry[]): string {
  return auditView({
    workspaceId: 'w',
    workspaceName: 'W',
    entries,
    action: undefined,
    userNames: new Map([['u1', 'Ana']]),
    keyNames: new Map(),
    networkNames: new Map([
      ['tiktok', 'TikTok'],
      ['instagram', 'Instagram'],
    ]),
    olderHref: undefined,
  }).value;
}

describe('the audit page names the network', () => {
  it('of an Instagram account, a TikTok account, and an entry from before entries named it (TikTok)', () => {
    expect(render([entry('instagram')])).toContain('Instagram account <code>0f8fad5b</code>');
    expect(render([entry('tiktok')])).toContain('TikTok account <code>0f8fad5b</code>');
    expect(render([entry(undefined)])).toContain('TikTok account <code>0f8fad5b</code>');
    expect(render([entry('instagram')])).toContain('Connected a social account');
  });
});
