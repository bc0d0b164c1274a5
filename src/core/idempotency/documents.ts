import type { ErrorCode, IssueDetail } from '../errors.js';

// Stored documents of Idempotency-Key handling. Ids are UUID strings kept in `_id`.

/**
 * Binds an Idempotency-Key to the request first sent with it: `_id` is the key id
 * (sha256 of workspace id + key), inserted once. `bindingId` prefixes the attempt and outcome
 * ids, so documents of a purged binding can never be mistaken for a later one's.
 */
export interface IdempotencyKeyDoc {
  _id: string;
  kind: 'key';
  keyId: string;
  bindingId: string;
  workspaceId: string;
  fingerprint: string;
  createdAt: Date;
}

/**
 * One try at executing a keyed request, `_id` = `${bindingId}#${n}`: inserting the next number
 * decides the single executor (also when taking over from a crashed one). Only its holder
 * updates it afterwards (heartbeat, release).
 */
export interface IdempotencyAttemptDoc {
  _id: string;
  kind: 'attempt';
  keyId: string;
  attempt: number;
  holder: string;
  expiresAt: Date;
  releasedAt: Date | null;
  createdAt: Date;
}

/** The outcome replayed for a key, `_id` = `${bindingId}#outcome`, inserted once and never changed. */
export interface IdempotencyOutcomeDoc {
  _id: string;
  kind: 'outcome';
  keyId: string;
  outcome:
    | { type: 'success'; status: number; body: string | null }
    | { type: 'error'; code: ErrorCode; message: string; details: IssueDetail[] | null };
  createdAt: Date;
}

/** Every document of the `idempotency` collection; all carry the `keyId` they belong to. */
export type IdempotencyDoc = IdempotencyKeyDoc | IdempotencyAttemptDoc | IdempotencyOutcomeDoc;
