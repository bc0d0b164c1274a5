import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CoreDeps } from '../context.js';
import { authenticateApiKey } from '../auth/api-keys.js';
import { claimLease } from '../db/leases.js';
import { pollDeviceToken, SLOW_DOWN_STEP_S } from '../device/poll.js';
import { DeviceFlowError } from '../device/errors.js';
import { startDeviceAuthorization } from '../device/start.js';
import { defineJobHandle } from '../jobs/job-handle.js';
import type { ChatLoginDoc, ChatPlatform } from './documents.js';
import { storeLink } from './links.js';

/** Polls one chat login's device code; on the due-task lane so a poll happens at its exact time. */
export const pollChatLoginHandle = defineJobHandle({
  name: 'chat.poll-login',
  data: z.object({ loginId: z.string() }),
  queue: 'due-tasks',
});

/** The lease a login's poll claims once per interval (a generation each; purged with the login). */
export function loginPollLeaseKey(loginId: string): string {
  return `chat-login-poll:${loginId}`;
}

/** What the person who typed `/postdeck login` is shown, only to them. */
export interface ChatLoginStart {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresAt: Date;
}

/**
 * Starts a device login with the bot as the RFC 8628 client (spec 4): the code names the chat
 * workspace and the person, so whoever approves it in the browser sees what they link (RFC 8628
 * section 5.4). The device code is kept sealed and polled by a job, so a restart loses nothing.
 */
export async function startChatLogin(
  deps: CoreDeps,
  input: {
    platform: ChatPlatform;
    teamId: string;
    teamName: string;
    chatUserId: string;
    chatUserName: string;
    replyTarget: string;
    publicUrl: string;
    prefix?: string | undefined;
  },
): Promise<ChatLoginStart> {
  const where = input.platform === 'slack' ? 'Slack workspace' : 'Discord server';
  const started = await startDeviceAuthorization(deps, {
    clientName: `${where} ${input.teamName} (${input.teamId}), requested by ${input.chatUserName}`,
    origin: input.platform,
    publicUrl: input.publicUrl,
    prefix: input.prefix,
  });
  const now = deps.now();
  const login: ChatLoginDoc = {
    _id: randomUUID(),
    platform: input.platform,
    teamId: input.teamId,
    chatUserId: input.chatUserId,
    chatUserName: input.chatUserName,
    sealedDeviceCode: deps.secrets.seal(started.device_code),
    reply: { platform: input.platform, sealed: deps.secrets.seal(input.replyTarget) },
    interval: started.interval,
    expiresAt: new Date(now.getTime() + started.expires_in * 1000),
    outcome: null,
    createdAt: now,
  };
  await deps.db.chatLogins.insertOne(login);
  await schedulePoll(deps, login, now);
  return {
    userCode: started.user_code,
    verificationUri: started.verification_uri,
    verificationUriComplete: started.verification_uri_complete,
    expiresAt: login.expiresAt,
  };
}

/** How a login ended, for the person who started it; null while it goes on. */
export type LoginOutcome =
  { outcome: 'linked'; workspaceName: string } | { outcome: 'denied' } | { outcome: 'expired' } | null;

/**
 * One poll of a login's device code, at most once per interval whatever the number of tasks (a
 * lease per interval decides), then the next poll is scheduled. Answers the outcome once it ends.
 */
export async function pollChatLogin(deps: CoreDeps, loginId: string): Promise<LoginOutcome> {
  const login = await deps.db.chatLogins.findOne({ _id: loginId });
  if (!login || login.outcome !== null) return null;
  const now = deps.now();
  const window = await claimLease(deps.db, loginPollLeaseKey(loginId), {
    ttlMs: Math.max(login.interval * 1000 - 500, 500),
    now,
  });
  if (!window) return null;
  if (login.expiresAt <= now) return end(deps, login, { outcome: 'expired' });
  try {
    const { api_key: apiKey } = await pollDeviceToken(deps, { deviceCode: deps.secrets.open(login.sealedDeviceCode) });
    const scope = await authenticateApiKey(deps, apiKey);
    await storeLink(deps, login, apiKey, scope);
    const workspace = await deps.db.workspaces.findOne({ _id: scope.workspaceId });
    return end(deps, login, { outcome: 'linked', workspaceName: workspace?.name ?? scope.workspaceId });
  } catch (error) {
    if (!(error instanceof DeviceFlowError)) throw error;
    if (error.error === 'access_denied') return end(deps, login, { outcome: 'denied' });
    if (error.error === 'expired_token') return end(deps, login, { outcome: 'expired' });
    if (error.error === 'slow_down') {
      login.interval += SLOW_DOWN_STEP_S;
      await deps.db.chatLogins.updateOne({ _id: login._id }, { $set: { interval: login.interval } });
    }
    await schedulePoll(deps, login, now);
    return null;
  }
}

async function end(deps: CoreDeps, login: ChatLoginDoc, outcome: NonNullable<LoginOutcome>): Promise<LoginOutcome> {
  await deps.db.chatLogins.updateOne({ _id: login._id }, { $set: { outcome: outcome.outcome } });
  deps.logger.info({ loginId: login._id, platform: login.platform, outcome: outcome.outcome }, 'chat login ended');
  return outcome;
}

/** The next poll: one interval from now, the RFC's pace (never sooner, so no slow_down in normal runs). */
function schedulePoll(deps: CoreDeps, login: ChatLoginDoc, now: Date): Promise<string> {
  return deps.jobs.enqueue(
    pollChatLoginHandle,
    { loginId: login._id },
    { runAt: new Date(now.getTime() + login.interval * 1000) },
  );
}
