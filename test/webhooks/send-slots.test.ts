import { describe, expect, it } from 'vitest';
import { ATTEMPTS_PER_HOST, ATTEMPTS_PER_WORKSPACE, takeSendSlot } from '../../src/core/webhooks/send-slots.js';

// The in-process caps on webhook attempts in flight: a full workspace or host is refused a place (its
// attempt waits), while other workspaces and hosts still get theirs.
describe('webhook send places', () => {
  it('caps one workspace across hosts, and frees a place once released (once, however often called)', () => {
    const held = Array.from({ length: ATTEMPTS_PER_WORKSPACE }, (_, n) => takeSendSlot('ws-full', `host-${n}.test`));
    expect(held.every((release) => release !== null)).toBe(true);
    expect(takeSendSlot('ws-full', 'another.test')).toBeNull();
    const other = takeSendSlot('ws-other', 'another.test');
    expect(other).not.toBeNull();
    held[0]!();
    held[0]!();
    const again = takeSendSlot('ws-full', 'another.test');
    expect(again).not.toBeNull();
    expect(takeSendSlot('ws-full', 'another.test')).toBeNull();
    for (const release of [...held, other, again]) release?.();
  });

  it('caps one receiver host across workspaces', () => {
    const held = Array.from({ length: ATTEMPTS_PER_HOST }, (_, n) => takeSendSlot(`ws-${n}`, 'busy.test'));
    expect(held.every((release) => release !== null)).toBe(true);
    expect(takeSendSlot('ws-new', 'busy.test')).toBeNull();
    const elsewhere = takeSendSlot('ws-new', 'quiet.test');
    expect(elsewhere).not.toBeNull();
    for (const release of [...held, elsewhere]) release?.();
    expect(takeSendSlot('ws-new', 'busy.test')).not.toBeNull();
  });
});
