import { AppError } from '../errors.js';

/** How long a caller refused for a full decode queue is asked to wait: a decode takes about a second. */
export const DECODE_RETRY_AFTER_SECONDS = 2;

/** How many image decodes a process runs at once, and how many more may wait for a turn. */
export interface DecodeGateSettings {
  readonly slots: number;
  readonly queue: number;
}

/**
 * What a waiting decode does when the queue is full: a request is refused (`server_busy`, 503 with
 * Retry-After) so its caller retries later; background work (a job, a request already under way)
 * waits its turn, its own concurrency being bounded elsewhere.
 */
export type WhenBusy = 'refuse' | 'wait';

/**
 * The per-process limit on image decodes: every decode that may hold pixels (a conversion, a
 * preview, a rendition, a slide) runs inside `run`, so at most `slots` run at once whatever the
 * tenants send, and memory stays bounded by the slots, not by the requests.
 */
export interface DecodeGate {
  readonly settings: DecodeGateSettings;
  run<T>(work: () => Promise<T>, whenBusy?: WhenBusy): Promise<T>;
  /** Decodes running and waiting now. */
  load(): { running: number; waiting: number };
}

export function createDecodeGate(settings: DecodeGateSettings): DecodeGate {
  let running = 0;
  const waiting: (() => void)[] = [];

  const release = (): void => {
    const next = waiting.shift();
    // The slot passes straight to the next waiter, so a newcomer never overtakes the queue.
    if (next) next();
    else running -= 1;
  };

  const acquire = async (whenBusy: WhenBusy): Promise<void> => {
    if (running < settings.slots) {
      running += 1;
      return;
    }
    if (whenBusy === 'refuse' && waiting.length >= settings.queue) throw serverBusy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  };

  return {
    settings,
    async run(work, whenBusy = 'refuse') {
      await acquire(whenBusy);
      try {
        return await work();
      } finally {
        release();
      }
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}

/** The refusal for a full queue: nothing was done, so the same request may simply be sent again. */
export function serverBusy(): AppError {
  return new AppError(
    'server_busy',
    `The server is decoding as many images as it can; try again in ${DECODE_RETRY_AFTER_SECONDS} seconds`,
    undefined,
    DECODE_RETRY_AFTER_SECONDS,
  );
}
