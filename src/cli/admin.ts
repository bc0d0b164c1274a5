import { setTimeout as sleep } from 'node:timers/promises';
import { bootstrapTenant } from '../core/tenancy/bootstrap.js';
import { MAX_PROBE_HOLD_MS, readWorkerProbe, sendWorkerProbe } from '../core/ops/worker-probe.js';
import { openCore } from '../main.js';
import { cliRuntime } from './runtime.js';

/**
 * `postdeck admin bootstrap --json [--workspace NAME] [--plan PLAN]`: creates or reuses a tenant
 * and prints `{ accountId, workspaceId, userId, apiKey }`. Uses the running server's embedded
 * database when there is one.
 */
export async function bootstrapCommand(options: {
  workspace: string;
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
        : `Workspace ${options.workspace} (${result.workspaceId})\nAPI key (shown once): ${result.apiKey}\n`,
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
