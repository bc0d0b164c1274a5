import { FaultQueue, type FaultKind } from './faults.js';

/** One request the emulator answered, for tests (timing shows how many ran at once). */
export interface LoggedRequest {
  id: string;
  endpoint: 'chat' | 'images';
  model: string;
  startedAt: number;
  finishedAt: number;
  /** 0 for a request held open by a timeout fault until the client gave up. */
  status: number;
  fault?: FaultKind;
  /** Images: the prompt; chat: the last user message's text. */
  prompt: string;
}

/** What tests steer and read: latency, queued faults and the request log. */
export class OpenAiEmulatorControl {
  readonly faults = new FaultQueue();
  latency = { chatMs: 0, imagesMs: 0 };
  private readonly log: LoggedRequest[] = [];

  setLatency(latency: { chatMs?: number; imagesMs?: number }): void {
    this.latency = { ...this.latency, ...latency };
  }

  record(entry: LoggedRequest): void {
    this.log.push(entry);
    if (this.log.length > 10_000) this.log.shift();
  }

  requests(): readonly LoggedRequest[] {
    return this.log;
  }

  clearRequests(): void {
    this.log.length = 0;
  }

  reset(): void {
    this.faults.clear();
    this.clearRequests();
    this.latency = { chatMs: 0, imagesMs: 0 };
  }
}
