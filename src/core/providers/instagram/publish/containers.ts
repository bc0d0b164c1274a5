import { setTimeout as sleep } from 'node:timers/promises';
import { pollDelayMs, publishingSettings } from '../../../publishing/settings.js';
import { GraphError, type InstagramHttp } from '../graph.js';

/** A container's status_code (contract 2.3). */
export type ContainerStatusCode = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

/** A container as its status read tells it; `subcode` is the number at the end of an ERROR's `status`. */
export interface ContainerStatus {
  id: string;
  code: ContainerStatusCode;
  status: string;
  subcode: number | null;
}

/**
 * How long carousel items may take to finish before the carousel is made: Meta's advice is to query "once per
 * minute, for no more than 5 minutes" (contract 2.3); an item still processing then is tried anew later.
 */
export const ITEMS_READY_WITHIN_MS = 5 * 60_000;

/** `POST /{ig-user-id}/media`: makes a container (nothing is published by it) and answers its id. */
export async function createContainer(
  http: InstagramHttp,
  token: string,
  userId: string,
  params: Record<string, string>,
): Promise<string> {
  const answer = await http.post<{ id?: unknown }>(`/${userId}/media`, params, token);
  if (typeof answer.id !== 'string' || answer.id === '') {
    throw new GraphError(200, -1, null, null, 'Instagram answered a container without an id', null, null);
  }
  return answer.id;
}

/** `GET /{container-id}?fields=status_code,status` (contract 2.3). */
export async function readContainer(http: InstagramHttp, token: string, id: string): Promise<ContainerStatus> {
  const answer = await http.get<{ status_code?: unknown; status?: unknown }>(
    `/${id}`,
    { fields: 'status_code,status' },
    token,
  );
  const code = (typeof answer.status_code === 'string' ? answer.status_code : 'IN_PROGRESS') as ContainerStatusCode;
  const status = typeof answer.status === 'string' ? answer.status : code;
  // "Error: Media upload has failed with error code 2207026": the trailing number is the subcode.
  const subcode = code === 'ERROR' ? Number(/(\d+)\s*$/.exec(status)?.[1] ?? NaN) : NaN;
  return { id, code, status, subcode: Number.isInteger(subcode) ? subcode : null };
}

/**
 * Waits until every container finished processing, reading each unfinished one at the engine's polling pace
 * (a read that fails, other than for a dead token, counts as not yet finished). Answers the first that ended otherwise (ERROR, EXPIRED), or
 * null when all finished; throws when some were still processing after ITEMS_READY_WITHIN_MS.
 */
export async function untilFinished(
  http: InstagramHttp,
  token: string,
  ids: readonly string[],
): Promise<ContainerStatus | null> {
  const waiting = new Set(ids);
  const deadline = Date.now() + ITEMS_READY_WITHIN_MS;
  for (let polls = 0; ; polls += 1) {
    await sleep(pollDelayMs(polls, publishingSettings.pollMaxDelayMs));
    for (const id of [...waiting]) {
      const container = await readContainer(http, token, id).catch((error: unknown) => {
        if (error instanceof GraphError && error.tokenDead) throw error;
        return null;
      });
      if (container?.code === 'FINISHED') waiting.delete(id);
      else if (container && container.code !== 'IN_PROGRESS') return container;
    }
    if (waiting.size === 0) return null;
    if (Date.now() > deadline) {
      throw new Error(`Instagram was still processing ${waiting.size} carousel items after 5 minutes`);
    }
  }
}
