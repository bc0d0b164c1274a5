import { randomUUID } from 'node:crypto';
import type { Surface } from '../actor.js';
import type { CoreDeps } from '../context.js';
import type { MembershipRole } from './documents.js';
import { claimLease, isLeaseHeld, releaseLease, type Lease } from '../db/leases.js';
import { AppError, isDuplicateKeyError } from '../errors.js';
import { addressKey, countAgainstRateLimits } from '../auth/rate-limit.js';
import { createTenant, createUser } from '../tenancy/create-tenant.js';
import { adoptScriptedWorkspace, findUnclaimedScriptedWorkspace } from '../tenancy/scripted-workspace.js';
import { acceptInvitation, findUsableInvitation } from './invitations.js';
import { assertPasswordRules, hashPassword } from './passwords.js';
import { normalizeEmail } from './schema.js';
import { toUserView, type UserView } from './users.js';

/** Won once per install, by the first sign-up; never expires. */
export const FIRST_OWNER_LEASE = 'install:first-owner';

/** Settings the adapter passes in from config. */
export interface SignUpOptions {
  /** Whether anyone may sign up and get an account of their own; otherwise invitation only. */
  openSignup: boolean;
  /** The plan new accounts start on. */
  plan?: string;
  /** The client's address; when given, sign-ups are limited per address. */
  address?: string | undefined;
  /** Where the person signed up, for the audit trail when they join an existing workspace; the web pages by default. */
  surface?: Surface;
}

/** Sign-ups one address may make per hour (each costs a deliberately slow password hash). */
export const SIGNUPS_PER_ADDRESS_PER_HOUR = 20;

/** Who signed up, and which workspace they landed in and how. */
export interface SignUpResult {
  user: UserView;
  workspaceId: string;
  accountId: string;
  role: MembershipRole;
  via: 'first_owner' | 'invitation' | 'open_signup';
}

/**
 * Creates a user with a password. The first sign-up of an install (whoever wins the lease
 * `install:first-owner`: one insert decides, so two concurrent first sign-ups cannot both
 * become owner) gets a new account and workspace. Later people need an invitation, unless
 * sign-up is open, in which case they also get an account and workspace of their own.
 * Emails are unique through `user_emails`, whose `_id` is the normalized email.
 */
export async function signUp(
  deps: CoreDeps,
  input: { email: string; password: string; name: string; invitation?: string | undefined },
  options: SignUpOptions,
): Promise<SignUpResult> {
  const email = normalizeEmail(input.email);
  assertPasswordRules(input.password);
  if (options.address !== undefined) {
    const pool = `ratelimit:signup:addr:${addressKey(options.address)}`;
    await countAgainstRateLimits(deps, [{ pool, limit: SIGNUPS_PER_ADDRESS_PER_HOUR, windowMs: 3_600_000 }], email);
  }
  // Cheap refusals come before the deliberately slow hash, so a closed install is not a CPU sink.
  const invitation = input.invitation === undefined ? null : await findUsableInvitation(deps, input.invitation);
  if (invitation?.email && invitation.email !== email) {
    throw new AppError('forbidden', 'This invitation was sent to another email address');
  }
  if (!invitation && !options.openSignup && (await isLeaseHeld(deps.db, FIRST_OWNER_LEASE, deps.now()))) {
    throw closed();
  }
  const passwordHash = await hashPassword(input.password);
  const userId = randomUUID();
  await reserveEmail(deps, email, userId);

  let firstOwner: Lease | null = null;
  try {
    if (!invitation) firstOwner = await claimLease(deps.db, FIRST_OWNER_LEASE, { holder: userId, now: deps.now() });
    if (!invitation && !firstOwner && !options.openSignup) throw closed();
    const user = await createUser(deps, { id: userId, email, name: input.name, passwordHash });

    if (invitation && input.invitation !== undefined) {
      const joined = await acceptInvitation(deps, { token: input.invitation, userId, surface: options.surface });
      return { user: toUserView(user), ...joined, via: 'invitation' };
    }
    // A workspace a script made before anyone signed up becomes the first person's, keys and all.
    const scripted = firstOwner ? await findUnclaimedScriptedWorkspace(deps) : null;
    if (scripted) {
      await adoptScriptedWorkspace(deps, scripted.workspace, userId, options.surface ?? 'web');
      deps.logger.info({ userId, workspaceId: scripted.workspace._id }, 'first owner took over the scripted workspace');
      return {
        user: toUserView(user),
        workspaceId: scripted.workspace._id,
        accountId: scripted.workspace.accountId,
        role: 'owner',
        via: 'first_owner',
      };
    }
    const tenant = await createTenant(deps, {
      name: `${input.name}'s workspace`,
      plan: options.plan ?? deps.defaultPlan,
      ownerUserId: userId,
    });
    deps.logger.info({ userId, workspaceId: tenant.workspace._id, firstOwner: firstOwner !== null }, 'user signed up');
    return {
      user: toUserView(user),
      workspaceId: tenant.workspace._id,
      accountId: tenant.account._id,
      role: 'owner',
      via: firstOwner ? 'first_owner' : 'open_signup',
    };
  } catch (error) {
    // Undo the half-made user so the email (and the first-owner slot) can be used again.
    await deps.db.users.deleteOne({ _id: userId });
    await deps.db.userEmails.deleteOne({ _id: email, userId });
    if (firstOwner) await releaseLease(deps.db, firstOwner);
    throw error;
  }
}

async function reserveEmail(deps: CoreDeps, email: string, userId: string): Promise<void> {
  try {
    await deps.db.userEmails.insertOne({ _id: email, userId, createdAt: deps.now() });
  } catch (error) {
    if (isDuplicateKeyError(error)) throw new AppError('conflict', 'An account with this email already exists');
    throw error;
  }
}

function closed(): AppError {
  return new AppError('forbidden', 'Sign-up is by invitation only; ask a workspace owner for an invite link');
}
