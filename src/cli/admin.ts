import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../core/context.js';
import { limitsOf } from '../core/plans.js';
import { bootstrapTenant } from '../core/tenancy/bootstrap.js';
import { setAccountPlan } from '../core/tenancy/create-tenant.js';
import { installWorkspace } from '../core/tenancy/onboarding.js';
import { MAX_PROBE_HOLD_MS, readWorkerProbe, sendWorkerProbe } from '../core/ops/worker-probe.js';
import { randomUUID } from 'node:crypto';
import { toPlatform } from '../core/platforms/list-platforms.js';
import { systemScopeFor } from '../core/platforms/system-scope.js';
import { completeTikTokConnection, startTikTokConnection } from '../core/providers/tiktok/index.js';
import { openCore } from '../app/main.js';
import { findRunningTikTokEmulator } from '../app/tiktok-emulator.js';
import { externalTikTokEmulator, tiktokClientConfig, usesTikTokEmulator } from '../app/tiktok-setup.js';
import { authorizeOnEmulator, createEmulatedAccount } from './emulator-consent.js';
import { cliRuntime } from './runtime.js';

/**
 * `postdeck admin bootstrap --json [--workspace NAME] [--plan PLAN]`: mints a key for the named
 * workspace (made if missing) or, unnamed, the install's own, and prints
 * `{ accountId, workspaceId, userId, apiKey }`. Uses the running server's embedded
 * database when there is one.
 */
export async function bootstrapCommand(options: {
  workspace: string | undefined;
  plan: string | undefined;
  json: boolean;
}): Promise<void> {
  const { config, logger } = cliRuntime({ logsTo: 'stderr', level: 'warn' });
  const core = await openCore(config, logger);
  try {
    const result = await bootstrapTenant(core.deps, { workspaceName: options.workspace, plan: options.plan });
    process.stdout.write(
      options.json
        ? `${JSON.stringify(result)}\n`
        : `Workspace ${result.workspaceId}\nAPI key (shown once): ${result.apiKey}\n`,
    );
  } finally {
    await core.close();
  }
}

/**
 * `postdeck admin probe-worker [--hold-ms N] [--timeout-ms N]`: sends a job through the queue and
 * waits for a worker to finish it, to check that a deployment's workers are alive.
 */
export async function probeWorkerCommand(options: { holdMs: number; timeoutMs: number }): Promise<void> {
  if (!Number.isInteger(options.holdMs) || options.holdMs < 0 || options.holdMs > MAX_PROBE_HOLD_MS) {
    throw new Error(`--hold-ms must be a whole number from 0 to ${MAX_PROBE_HOLD_MS}`);
  }
  const { config, logger } = cliRuntime({ logsTo: 'stderr', level: 'warn' });
  const core = await openCore(config, logger);
  try {
    const probe = await sendWorkerProbe(core.deps, core.jobs, options.holdMs);
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      const current = await readWorkerProbe(core.deps, probe._id);
      if (current?.finishedAt) {
        process.stdout.write(`${JSON.stringify(current)}\n`);
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`no worker finished the probe within ${options.timeoutMs} ms (is a worker running?)`);
      }
      await sleep(250);
    }
  } finally {
    await core.close();
  }
}

/**
 * `postdeck admin connect-emulated-tiktok [--workspace ID] [--private] [--json]`: creates a new
 * account in the running server's TikTok emulator and connects it to the workspace through the
 * same path as the web page (state, consent page, code exchange), then prints the platform. The
 * state is bound to a one-off value of this run, standing in for a browser session.
 */
export async function connectEmulatedTikTokCommand(options: {
  workspace: string | undefined;
  private: boolean;
  json: boolean;
}): Promise<void> {
  const { config, logger } = cliRuntime({ logsTo: 'stderr', level: 'warn' });
  if (!usesTikTokEmulator(config)) {
    throw new Error(
      'TikTok credentials are set (TIKTOK_CLIENT_KEY): this server talks to the real TikTok, so there is no emulator to connect an account from',
    );
  }
  const external = externalTikTokEmulator(config);
  // This command plays the browser from where it runs, which reaches the emulator at its server address.
  const emulator = external
    ? { ...external, authUrl: external.apiUrl }
    : await findRunningTikTokEmulator(config.dataDir);
  if (!emulator)
    throw new Error(`no TikTok emulator is running for ${config.dataDir}: start Postdeck first (npm start)`);
  const core = await openCore(config, logger, { tiktok: tiktokClientConfig(config, emulator) });
  try {
    const scope = await systemScopeFor(core.deps, options.workspace ?? (await mainWorkspaceId(core.deps)));
    const account = await createEmulatedAccount(emulator.apiUrl, { private: options.private });
    const binding = `cli:${randomUUID()}`;
    const started = await startTikTokConnection(core.deps, scope, { binding });
    const callback = (await authorizeOnEmulator(started.authorizeUrl, account.openId)).searchParams;
    const result = await completeTikTokConnection(
      core.deps,
      {
        state: callback.get('state') ?? '',
        code: callback.get('code') ?? undefined,
        error: callback.get('error') ?? undefined,
        errorDescription: callback.get('error_description') ?? undefined,
      },
      binding,
    );
    if (result.outcome === 'cancelled') throw new Error(`the emulator refused the connection: ${result.description}`);
    const platform = toPlatform(result.platform, core.deps.providers);
    process.stdout.write(
      options.json
        ? `${JSON.stringify(platform)}\n`
        : `Connected emulated TikTok account ${platform.displayName ?? ''} (@${platform.displayHandle ?? ''}) as platform ${platform.id}\n`,
    );
  } finally {
    await core.close();
  }
}

/** The workspace admin commands act on when none is named: the install's own. */
async function mainWorkspaceId(deps: CoreDeps): Promise<string> {
  const main = await installWorkspace(deps);
  if (!main) {
    throw new Error(
      'this install has no workspace yet: sign up at /signup (the first person owns the install), or name one with --workspace',
    );
  }
  return main.workspace._id;
}

/** `postdeck admin set-plan --plan PLAN [--workspace ID]`: moves the workspace's account to a plan of the table. */
export async function setPlanCommand(options: {
  workspace: string | undefined;
  plan: string | undefined;
}): Promise<void> {
  if (!options.plan)
    throw new Error('--plan is required (a plan of the plan table, e.g. free, creator, team, unlimited)');
  const { config, logger } = cliRuntime({ logsTo: 'stderr', level: 'warn' });
  const core = await openCore(config, logger);
  try {
    const scope = await systemScopeFor(core.deps, options.workspace ?? (await mainWorkspaceId(core.deps)));
    await setAccountPlan(core.deps, { ...scope, surface: 'cli' }, options.plan);
    const limits = limitsOf(core.deps.plans, options.plan);
    process.stdout.write(
      `Account ${scope.accountId} is on the ${options.plan} plan: ${limits.monthlyPosts} posts, ` +
        `${limits.captionCredits} caption credits and ${limits.imageCredits} image credits a month.\n`,
    );
  } finally {
    await core.close();
  }
}
