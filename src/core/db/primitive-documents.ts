// Stored documents of the atomic primitives: leases, allowance ledgers, position hints, secret lookups.

/** One generation of a lease; `_id` is `${key}#${generation}` so each generation is won once. */
export interface LeaseDoc {
  _id: string;
  key: string;
  generation: number;
  holder: string;
  expiresAt: Date;
  releasedAt: Date | null;
  createdAt: Date;
}

/** One spent unit of an allowance; `_id` is `${pool}#${period}#${slot}`, slot in 1..allowance. */
export interface LedgerDoc {
  _id: string;
  pool: string;
  period: string;
  slot: number;
  ref: string;
  createdAt: Date;
}

/**
 * Where the last claim of a lease key or the last spend of an allowance window landed. A hint
 * only, written after the fact (races may leave it behind, never wrong ahead), so lookups can go
 * straight to the right `_id` instead of scanning: FerretDB pushes down only `_id` equality.
 */
export interface PositionHintDoc {
  _id: string;
  position: number;
}

/**
 * Finds a record by the hash of its secret (an API key, a session token) with one `_id`
 * lookup, because on FerretDB any other filter scans the whole collection. `_id` is
 * `<kind>:<sha256>`; the hash is not the secret, and the target keeps its own plain id.
 */
export interface SecretLookupDoc {
  _id: string;
  targetId: string;
  /** When the target stops being valid (sessions); null for records that do not expire. */
  expiresAt: Date | null;
}

/** A unit spent from an allowance and what it paid for, as a document that records it keeps it. */
export interface SpendDoc {
  id: string;
  pool: string;
  period: string;
  slot: number;
  ref: string;
}
