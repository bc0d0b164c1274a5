import { z } from 'zod';

/** How deep a free-form object may nest; the database refuses documents nested about 100 levels. */
export const MAX_STORED_DEPTH = 20;

/**
 * Why the database would refuse this key, or null. MongoDB and FerretDB refuse field names that
 * start with `$` (operators), contain `.` (paths) or a NUL character (C strings).
 */
export function unstorableKeyProblem(key: string): string | null {
  if (key.startsWith('$')) return `the key ${JSON.stringify(key)} cannot be stored: a key may not start with $`;
  if (key.includes('.')) return `the key ${JSON.stringify(key)} cannot be stored: a key may not contain a dot`;
  if (key.includes('\u0000')) return `the key ${JSON.stringify(key)} cannot be stored: a key may not contain NUL`;
  return null;
}

/**
 * A free-form JSON object that is stored as sent (provider settings): every key, at any depth, is
 * one the database takes, and it nests at most MAX_STORED_DEPTH levels. Each refused key is an
 * issue at its own path, so the caller hears which one, before anything is stored or spent.
 */
export function storableObject() {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const walk = (node: unknown, path: (string | number)[]): void => {
      if (typeof node !== 'object' || node === null) return;
      if (path.length > MAX_STORED_DEPTH) {
        ctx.addIssue({ code: 'custom', path, message: `nested more than ${MAX_STORED_DEPTH} levels deep` });
        return;
      }
      if (Array.isArray(node)) return node.forEach((item, index) => walk(item, [...path, index]));
      for (const [key, child] of Object.entries(node)) {
        const problem = unstorableKeyProblem(key);
        if (problem) ctx.addIssue({ code: 'custom', path: [...path, key], message: problem });
        else walk(child, [...path, key]);
      }
    };
    walk(value, []);
  });
}
