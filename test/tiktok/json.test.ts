import { describe, expect, it } from 'vitest';
import { parseJsonKeepingBigInts, quoteLongIntegers } from '../../src/core/providers/tiktok/json.js';
import { TokenRateLimiter } from '../../src/core/providers/tiktok/rate-limiter.js';

describe('parseJsonKeepingBigInts', () => {
  it('keeps a 19-digit post id exact (the live body of contract 4.6)', () => {
    const text =
      '{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7678907398077074696]},"error":{"code":"ok"}}';
    // Plain JSON.parse rounds it, which is the bug this parser exists to avoid.
    expect(String(JSON.parse(text).data.publicaly_available_post_id[0])).not.toBe('7678907398077074696');
    expect(parseJsonKeepingBigInts(text)).toEqual({
      data: { status: 'PUBLISH_COMPLETE', publicaly_available_post_id: ['7678907398077074696'] },
      error: { code: 'ok' },
    });
  });

  it('leaves short numbers, decimals, exponents and digits inside strings alone', () => {
    const text =
      '{"a":86400,"b":-1.5,"c":1e21,"d":"12345678901234567890","e":"x\\"9999999999999999","f":-1234567890123456}';
    expect(parseJsonKeepingBigInts(text)).toEqual({
      a: 86400,
      b: -1.5,
      c: 1e21,
      d: '12345678901234567890',
      e: 'x"9999999999999999',
      f: '-1234567890123456',
    });
  });

  it('quotes only the literal, keeping the surrounding text byte for byte', () => {
    expect(quoteLongIntegers('[ 1234567890123456 , 1 ]')).toBe('[ "1234567890123456" , 1 ]');
  });
});

describe('TokenRateLimiter', () => {
  it('waits for the oldest request to leave the window once the limit is reached', async () => {
    let now = 0;
    const sleeps: number[] = [];
    const limiter = new TokenRateLimiter(60_000, {
      now: () => now,
      sleep: (ms) => {
        sleeps.push(ms);
        now += ms;
        return Promise.resolve();
      },
    });
    await limiter.acquire('k', 2);
    now = 10_000;
    await limiter.acquire('k', 2);
    await limiter.acquire('other', 2);
    expect(sleeps).toEqual([]);
    await limiter.acquire('k', 2);
    expect(sleeps).toEqual([50_001]);
  });
});
