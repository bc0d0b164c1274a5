/** Attempts one workspace has in flight at once in a worker process. */
export const ATTEMPTS_PER_WORKSPACE = 4;
/** Attempts to one receiver host (the URL's host name) in flight at once in a worker process, all workspaces together. */
export const ATTEMPTS_PER_HOST = 4;

const inFlight = { workspace: new Map<string, number>(), host: new Map<string, number>() };

/**
 * Takes a place for an attempt of `workspaceId` to `host`, or answers null when either already has its
 * cap in flight here (the caller postpones the attempt: a busy workspace or host waits, and does not
 * take the send pool from the others). The release is idempotent.
 */
export function takeSendSlot(workspaceId: string, host: string): (() => void) | null {
  if ((inFlight.workspace.get(workspaceId) ?? 0) >= ATTEMPTS_PER_WORKSPACE) return null;
  if ((inFlight.host.get(host) ?? 0) >= ATTEMPTS_PER_HOST) return null;
  bump(inFlight.workspace, workspaceId, 1);
  bump(inFlight.host, host, 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    bump(inFlight.workspace, workspaceId, -1);
    bump(inFlight.host, host, -1);
  };
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
