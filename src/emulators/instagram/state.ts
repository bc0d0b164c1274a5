import { randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';

/** Graph endpoints a fault can be injected into; `*` is any of them. */
export const FAULT_ENDPOINTS = [
  'me',
  'create_container',
  'container_status',
  'media_publish',
  'media_read',
  'content_publishing_limit',
  'insights',
  '*',
] as const;
/** One of FAULT_ENDPOINTS. */
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];

/**
 * An injected fault (contract "Points a faithful emulator must reproduce" 8): the next `times` calls of
 * `endpoint` answer the Graph error `code`/`subcode`. With `afterSuccess` the call takes effect first (the
 * "published but reported failed" case); with `regainMinutes` the answer carries the throttling headers at 100 %;
 * with `drop` the connection is cut with no answer at all.
 */
export const FaultSchema = z
  .object({
    endpoint: z.enum(FAULT_ENDPOINTS),
    code: z.number().int().optional(),
    subcode: z.number().int().optional(),
    message: z.string().min(1).optional(),
    httpStatus: z.number().int().min(400).max(599).default(400),
    afterSuccess: z.boolean().default(false),
    regainMinutes: z.number().int().min(0).optional(),
    times: z.number().int().positive().default(1),
    /** Cut the connection instead of answering (a timeout as the client sees it); `code` is then not needed. */
    drop: z.boolean().default(false),
  })
  .refine((fault) => fault.drop || fault.code !== undefined, { message: 'code is required unless drop is true' });
/** See FaultSchema. */
export type Fault = z.infer<typeof FaultSchema>;

/** Digits like Instagram's numeric ids (17 of them), with a fixed prefix per kind of object. */
export function numericId(prefix: string): string {
  let id = prefix;
  while (id.length < 17) id += String(randomInt(10));
  return id;
}

/** One emulated Instagram account, as the control API creates and edits it. */
export const AccountSchema = z.object({
  /** The app-scoped id: `/me`'s `id` and the code exchange's `user_id`. */
  id: z
    .string()
    .regex(/^\d+$/)
    .default(() => numericId('9')),
  /** The professional account id: `/me`'s `user_id`. Publishing paths accept either id. */
  userId: z
    .string()
    .regex(/^\d+$/)
    .default(() => numericId('17841')),
  username: z.string().min(1).default('emulated.creator'),
  name: z.string().default('Emulated Creator'),
  accountType: z.enum(['BUSINESS', 'MEDIA_CREATOR', 'PERSONAL']).default('BUSINESS'),
  profilePictureUrl: z.string().default('https://example.invalid/instagram-avatar.jpg'),
  followersCount: z.number().int().min(0).default(0),
  followsCount: z.number().int().min(0).default(0),
  /** Scopes this user leaves unticked on the consent page. */
  deniedScopes: z.array(z.string()).default([]),
  faults: z.array(FaultSchema).default([]),
  /** Account insight numbers by metric (`reach`, `views`, `follower_count`...), answered as set. */
  insights: z.record(z.string(), z.number().int().min(0)).default({}),
});
/** See AccountSchema. */
export type Account = z.infer<typeof AccountSchema>;

/** An access token: short-lived (from the code) or long-lived (exchanged or refreshed). */
export interface Grant {
  token: string;
  kind: 'short' | 'long';
  accountId: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
  revoked: boolean;
}

/** An issued, not yet redeemed authorization code. */
export interface AuthCode {
  accountId: string;
  scopes: string[];
  redirectUri: string;
  expiresAt: number;
}

/** What the emulator fetched from an image_url or video_url, as the control API reports it. */
export type FetchedMedia =
  | { kind: 'image'; bytes: number; width: number; height: number; data: Buffer }
  | { kind: 'video'; bytes: number; width: number; height: number; durationSec: number };

/** A media container (contract 2.1 to 2.3). */
export interface Container {
  id: string;
  accountId: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'REELS' | 'CAROUSEL';
  isCarouselItem: boolean;
  children: string[];
  caption: string | null;
  params: Record<string, string>;
  createdAt: number;
  /** When IN_PROGRESS ends (fetch done plus processing); null while the video is still being fetched. */
  readyAt: number | null;
  /** The subcode a failed video fetch or check left; the container reads ERROR. */
  errorSubcode: number | null;
  fetched: FetchedMedia | null;
  expired: boolean;
  publishedMediaId: string | null;
}

/** A published media object (or a carousel child of one). */
export interface Media {
  id: string;
  accountId: string;
  containerId: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  productType: 'FEED' | 'REELS';
  caption: string | null;
  shortcode: string;
  publishedAt: number;
  children: string[];
  parentId: string | null;
  fetched: FetchedMedia | null;
  /** Insight numbers by metric, answered as set (0 for an unset metric of the media's set). */
  insights: Record<string, number>;
  /** `not_enough_viewers`: the (#10) error; `empty`: `data: []`, as while the numbers are delayed. */
  insightsUnavailable: 'not_enough_viewers' | 'empty' | null;
}

/** Everything the emulator remembers, in memory only. */
export class InstagramState {
  readonly accounts = new Map<string, Account>();
  readonly grants: Grant[] = [];
  readonly codes = new Map<string, AuthCode>();
  readonly containers = new Map<string, Container>();
  readonly media = new Map<string, Media>();
  /** Graph requests received, by `METHOD /path` with ids as `{id}`: what a test counts calls by. */
  readonly apiRequests = new Map<string, number>();
  /** Times of Graph calls in the last hour, for X-App-Usage. */
  readonly callTimes: number[] = [];
  /** `media_publish` calls naming a container already PUBLISHED: each one a duplicate avoided. */
  republishAttempts = 0;
  /** How far the emulator's clock runs ahead of real time (tokens, containers, quota windows read it). */
  clockOffsetMs = 0;

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** The account by either of its ids. */
  accountById(id: string): Account | undefined {
    return this.accounts.get(id) ?? [...this.accounts.values()].find((a) => a.userId === id);
  }

  grantOf(token: string): Grant | undefined {
    return this.grants.find((g) => g.token === token);
  }

  /** Publishes of this account in the rolling 24 h before `now` (a carousel is one; children are not counted). */
  publishesInDay(accountId: string, since = this.now() - 86_400_000): number {
    return [...this.media.values()].filter(
      (m) => m.accountId === accountId && m.parentId === null && m.publishedAt > since,
    ).length;
  }

  containersInDay(accountId: string): number {
    const since = this.now() - 86_400_000;
    return [...this.containers.values()].filter((c) => c.accountId === accountId && c.createdAt > since).length;
  }

  /** Takes the first injected fault for this account and endpoint, counting it down. */
  takeFault(accountId: string, endpoint: FaultEndpoint): Fault | undefined {
    const account = this.accounts.get(accountId);
    const fault = account?.faults.find((f) => f.endpoint === endpoint || f.endpoint === '*');
    if (!account || !fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) account.faults.splice(account.faults.indexOf(fault), 1);
    return fault;
  }
}

/** An opaque token with the visible prefix of Instagram user tokens. */
export function newToken(): string {
  return `IGAA${randomBytes(30).toString('base64url')}`;
}
