import type { CoreDeps } from '../context.js';
import type { UserDoc } from './documents.js';
import { normalizeEmail } from './schema.js';

/** A user as adapters show them: never the password hash. */
export interface UserView {
  id: string;
  email: string | null;
  name: string;
  createdAt: Date;
}

/** The public view of a user document. */
export function toUserView(doc: UserDoc): UserView {
  return { id: doc._id, email: doc.email, name: doc.name, createdAt: doc.createdAt };
}

/** The user who holds `email`, found through the reservation that makes emails unique. */
export async function findUserByEmail(deps: CoreDeps, email: string): Promise<UserDoc | null> {
  const reservation = await deps.db.userEmails.findOne({ _id: normalizeEmail(email) });
  return reservation ? deps.db.users.findOne({ _id: reservation.userId }) : null;
}

/** The user with `userId`, or null. */
export async function findUser(deps: CoreDeps, userId: string): Promise<UserDoc | null> {
  return deps.db.users.findOne({ _id: userId });
}
