import type { Logger } from '../logger.js';
import type { Actor, ChatUser, Surface } from './actor.js';
import type { ApiKeyCache } from './auth/key-cache.js';
import type { ChatGateways } from './chat/gateway.js';
import type { SecretBox } from './crypto/secret-box.js';
import type { Collections } from './db/collections.js';
import type { JobQueue } from './jobs/queue.js';
import type { MediaDeps } from './media/deps.js';
import type { Metrics } from './ops/metrics.js';
import type { PlanTable } from './plans.js';
import type { AiProvider } from './providers/openai/provider.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { RetentionSettings } from './retention/settings.js';
import type { WebhookSettings } from './webhooks/settings.js';

/** What every use case may use: the collections, the plan table, a logger, the clock and the providers. */
export interface CoreDeps {
  readonly db: Collections;
  readonly plans: PlanTable;
  /** The plan new accounts start on. */
  readonly defaultPlan: string;
  readonly logger: Logger;
  readonly now: () => Date;
  /** Seals provider tokens at rest. */
  readonly secrets: SecretBox;
  /** Verified API keys and their last-used times, kept by this process (see key-cache.ts). */
  readonly keyCache: ApiKeyCache;
  /** The networks posts go to, by the `provider` of their platforms (src/core/providers/port.ts). */
  readonly providers: ProviderRegistry<CoreDeps>;
  /** The media store, limits and public base URL (the publishing engine streams and links media). */
  readonly media: MediaDeps;
  /** The AI provider (OpenAI, a compatible server, or the emulator, by its base URL) and how hard to drive it. */
  readonly ai: { readonly provider: AiProvider; readonly imageConcurrency: number };
  /** The job queue: use cases and jobs enqueue work here. */
  readonly jobs: JobQueue;
  /**
   * The chat platforms whose bots are on (Slack, Discord), filled in by the composition root once
   * their adapters exist; empty when no bot is configured.
   */
  readonly chat: ChatGateways;
  /** What the operator's metrics count (NO_METRICS when nobody reads them). */
  readonly metrics: Metrics;
  /** Outbound webhooks: whether endpoints may be private addresses, and the retry backoff. */
  readonly webhooks: WebhookSettings;
  /** How long webhook deliveries and audit entries are kept (the worker's purge). */
  readonly retention: RetentionSettings;
}

/** The neutral request context every adapter builds; every query is scoped by it. */
export interface Scope {
  readonly workspaceId: string;
  readonly accountId: string;
  readonly actor: Actor;
  /** The surface the request came through; absent for the system's own work (jobs, sweeps). */
  readonly surface?: Surface;
  /** In chat: the approver whose click the link's key carries out. */
  readonly chatUser?: ChatUser;
  /**
   * Set while a request sent with an Idempotency-Key executes: its key's binding id. What the request
   * creates takes ids derived from it, so an execution repeated after its process died (its outcome
   * never kept) finds what the first one made instead of making it twice.
   */
  readonly idempotencySeed?: string;
}

export type { Actor } from './actor.js';
