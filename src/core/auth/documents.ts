// Stored documents of API keys. Ids are UUID strings kept in `_id`.

export interface ApiKeyDoc {
  _id: string;
  workspaceId: string;
  accountId: string;
  userId: string | null;
  name: string;
  /** First characters of the secret, shown in listings so a person can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  hash: string;
  createdAt: Date;
  /** Written only by revocation: see ApiKeyUsageDoc for why usage lives elsewhere. */
  revokedAt: Date | null;
}

/**
 * When a key was last used, kept apart from the key: FerretDB 1.x rewrites whole documents, so a
 * usage write racing a revocation on the same document could undo the revocation.
 */
export interface ApiKeyUsageDoc {
  _id: string;
  lastUsedAt: Date;
}

/** One document (`_id` 'api-keys') whose random `nonce` changes at every revocation: see key-cache.ts. */
export interface ApiKeyRevisionDoc {
  _id: string;
  nonce: string;
  changedAt: Date;
}
