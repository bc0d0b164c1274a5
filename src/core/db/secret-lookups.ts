import type { Collection } from 'mongodb';
import type { SecretLookupDoc } from './primitive-documents.js';

/** The kinds of secret-addressed records. */
export type SecretKind = 'api_key' | 'session';

/** Records that the secret hashing to `hash` belongs to `targetId`. */
export async function registerSecret(
  lookups: Collection<SecretLookupDoc>,
  kind: SecretKind,
  hash: string,
  targetId: string,
  expiresAt: Date | null = null,
): Promise<void> {
  await lookups.insertOne({ _id: lookupId(kind, hash), targetId, expiresAt });
}

/** The id of the record whose secret hashes to `hash`, or null. */
export async function findSecretTarget(
  lookups: Collection<SecretLookupDoc>,
  kind: SecretKind,
  hash: string,
): Promise<string | null> {
  return (await lookups.findOne({ _id: lookupId(kind, hash) }))?.targetId ?? null;
}

/** Forgets a secret (sign-out); the record it pointed at is the caller's to delete. */
export async function forgetSecret(
  lookups: Collection<SecretLookupDoc>,
  kind: SecretKind,
  hash: string,
): Promise<void> {
  await lookups.deleteOne({ _id: lookupId(kind, hash) });
}

function lookupId(kind: SecretKind, hash: string): string {
  return `${kind}:${hash}`;
}
