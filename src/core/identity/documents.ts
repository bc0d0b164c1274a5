// Stored documents of people: users, their emails, sessions, invitations and memberships. Ids are UUID strings kept in `_id`.

export interface UserDoc {
  _id: string;
  /** Normalized (trimmed, lower-case); null for users made by `admin bootstrap`. */
  email: string | null;
  name: string;
  /** argon2id hash (PHC string); null for users who cannot sign in with a password. */
  passwordHash: string | null;
  createdAt: Date;
}

/**
 * Reserves an email for one user: `_id` is the normalized email, so the unique `_id` index
 * decides between concurrent sign-ups (the emulator has no atomic findOneAndUpdate and may
 * lack partial indexes, which a unique index on `users.email` with nulls would need).
 */
export interface UserEmailDoc {
  _id: string;
  userId: string;
  createdAt: Date;
}

/** A signed-in session; the bearer token itself is never stored, only its SHA-256. */
export interface SessionDoc {
  _id: string;
  userId: string;
  hash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** An invitation to a workspace; the link's token is stored only as its SHA-256. */
export interface InvitationDoc {
  _id: string;
  workspaceId: string;
  accountId: string;
  /** When set, only a user with this (normalized) email may accept. */
  email: string | null;
  role: MembershipRole;
  hash: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedBy: string | null;
  revokedAt: Date | null;
}

export type MembershipRole = 'owner' | 'member';

export interface MembershipDoc {
  _id: string;
  workspaceId: string;
  userId: string;
  role: MembershipRole;
  createdAt: Date;
}
