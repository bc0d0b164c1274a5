import { createHash } from 'node:crypto';

/** What identifies a request for idempotency: the operation, its path values and its validated inputs. */
export interface FingerprintedRequest {
  method: string;
  /** The route's path template (e.g. `/posts/:id/publish`), so one key cannot serve two operations. */
  route: string;
  params: unknown;
  query: unknown;
  body: unknown;
}

/** SHA-256 of the request's canonical JSON: equal for requests that mean the same, whatever their key order. */
export function requestFingerprint(request: FingerprintedRequest): string {
  const canonical = canonicalJson([
    request.method.toUpperCase(),
    request.route,
    request.params ?? null,
    request.query ?? null,
    request.body ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** JSON with the keys of every object sorted, so two equal values always serialize alike. */
export function canonicalJson(value: unknown): string {
  // JSON.stringify applies toJSON (dates) before the replacer sees a value.
  return JSON.stringify(value, (_key, item: unknown) => (isPlainObject(item) ? sortKeys(item) : item));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

// fromEntries defines properties, so even a `__proto__` key from parsed JSON stays plain data.
function sortKeys(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : 1)));
}
