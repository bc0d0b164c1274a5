import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import type { UserDoc } from '../identity/documents.js';
import type { AccountDoc, WorkspaceDoc } from './documents.js';
import { DEFAULT_AI_SETTINGS } from './ai-settings.js';

export interface NewTenant {
  account: AccountDoc;
  workspace: WorkspaceDoc;
}

/** Creates an account on `plan` with its first workspace, owned by `ownerUserId`. */
export async function createTenant(
  deps: CoreDeps,
  input: { name: string; plan: string; ownerUserId: string },
): Promise<NewTenant> {
  assertKnownPlan(deps, input.plan);
  const now = deps.now();
  const account: AccountDoc = { _id: randomUUID(), name: input.name, plan: input.plan, createdAt: now };
  const workspace: WorkspaceDoc = {
    _id: randomUUID(),
    accountId: account._id,
    name: input.name,
    ai: { ...DEFAULT_AI_SETTINGS },
    createdAt: now,
    updatedAt: now,
  };
  await deps.db.accounts.insertOne(account);
  await deps.db.workspaces.insertOne(workspace);
  await deps.db.memberships.insertOne({
    _id: randomUUID(),
    workspaceId: workspace._id,
    userId: input.ownerUserId,
    role: 'owner',
    createdAt: now,
  });
  return { account, workspace };
}

/**
 * Creates a user record. Sign-up reserves the email in `user_emails` first and passes the
 * password hash; bootstrap users have neither.
 */
export async function createUser(
  deps: CoreDeps,
  input: { email: string | null; name: string; passwordHash?: string | null; id?: string },
): Promise<UserDoc> {
  const user: UserDoc = {
    _id: input.id ?? randomUUID(),
    email: input.email,
    name: input.name,
    passwordHash: input.passwordHash ?? null,
    createdAt: deps.now(),
  };
  await deps.db.users.insertOne(user);
  return user;
}

/**
 * Moves the scope's account to another plan from the plan table; the change is in the audit trail
 * of the scope's workspace (the one it was made from).
 */
export async function setAccountPlan(deps: CoreDeps, scope: Scope, plan: string): Promise<void> {
  assertKnownPlan(deps, plan);
  const before = await deps.db.accounts.findOne({ _id: scope.accountId }, { projection: { plan: 1 } });
  if (!before || before.plan === plan) return;
  await deps.db.accounts.updateOne({ _id: scope.accountId }, { $set: { plan } });
  await recordAudit(deps, scope, {
    action: 'plan.changed',
    subject: { type: 'account', id: scope.accountId },
    details: { from: before.plan, to: plan },
    occurrence: String(deps.now().getTime()),
  });
}

function assertKnownPlan(deps: CoreDeps, plan: string): void {
  if (!(plan in deps.plans)) {
    throw new AppError('invalid_request', `Unknown plan "${plan}"; known plans: ${Object.keys(deps.plans).join(', ')}`);
  }
}
