import { describe, expect, it } from 'vitest';
import { addressKey, fixedWindow } from '../../src/core/auth/rate-limit.js';
import {
  USER_CODE_ALPHABET,
  formatUserCode,
  generateUserCode,
  hammingDistance,
  normalizeUserCode,
} from '../../src/core/device/user-code.js';

describe('user codes', () => {
  it('draws 8 characters from a 20-letter alphabet without vowels or digits (about 34.6 bits)', () => {
    expect(USER_CODE_ALPHABET).toHaveLength(20);
    expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOUY0-9]/);
    expect(8 * Math.log2(USER_CODE_ALPHABET.length)).toBeCloseTo(34.58, 2);
    const codes = Array.from({ length: 200 }, generateUserCode);
    for (const code of codes) expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('is shown as PREFIX-XXXX-XXXX', () => {
    expect(formatUserCode('DECK', 'BCDFGHJK')).toBe('DECK-BCDF-GHJK');
  });

  it.each([
    ['DECK-BCDF-GHJK', 'BCDFGHJK'],
    ['deck-bcdf-ghjk', 'BCDFGHJK'],
    ['BCDF-GHJK', 'BCDFGHJK'],
    ['bcdfghjk', 'BCDFGHJK'],
    [' deck bcdf ghjk ', 'BCDFGHJK'],
    ['DECKBCDFGHJK', 'BCDFGHJK'],
  ])('reads %j as %s (case-insensitive, dash and prefix optional)', (typed, code) => {
    expect(normalizeUserCode(typed)).toBe(code);
  });

  it('reads too short or odd input as no code at all', () => {
    expect(normalizeUserCode('BCDF')).toBeNull();
    expect(normalizeUserCode('BCDF-GHJ!')).toBeNull();
  });

  it('measures how close two codes are', () => {
    expect(hammingDistance('BCDFGHJK', 'BCDFGHJK')).toBe(0);
    expect(hammingDistance('BCDFGHJK', 'BCDFGHJL')).toBe(1);
    expect(hammingDistance('BCDFGHJK', 'CCDFGHJL')).toBe(2);
    expect(hammingDistance('BCDFGHJK', 'BCDF')).toBe(Infinity);
  });
});

describe('rate-limit keys and windows', () => {
  it('limits IPv6 clients per /64 and mapped IPv4 as IPv4', () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('10.1.2.3')).toBe('10.1.2.3');
  });

  it('names the fixed window and the seconds left in it', () => {
    const window = fixedWindow(new Date('2026-01-01T00:14:00Z'), 15 * 60_000);
    expect(window.retryAfterSeconds).toBe(60);
    expect(fixedWindow(new Date('2026-01-01T00:00:01Z'), 15 * 60_000).period).toBe(window.period);
    expect(fixedWindow(new Date('2026-01-01T00:15:00Z'), 15 * 60_000).period).not.toBe(window.period);
  });
});
