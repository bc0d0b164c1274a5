// The provider port: what a social network does for Postdeck, declared once. Each network implements it in
// its own folder (src/core/providers/<network>/); the shared core modules (posts, publishing, insights,
// platforms, slides, media, chat) reach a network only through this port and the registry.

import type { IssueDetail } from '../errors.js';
import type { AspectFit, AspectLimits, MediaDoc } from '../media/documents.js';
import type { PlatformDoc } from '../platforms/documents.js';
import type { PostDoc } from '../posts/documents.js';
import type { PostingSchemaBody } from './contract.js';

/**
 * A network that takes images only in some shapes or formats: the limits an image Postdeck renders for it
 * meets, and the fit a post's settings ask for. Postdeck renders an image when it is not a JPEG and the
 * network takes only JPEGs, or when a fit is asked and the image is outside the limits; `checkPost`
 * judges images as they will be sent.
 */
export interface ImageRendering {
  readonly limits: AspectLimits;
  fitOf(settings: Record<string, unknown>): AspectFit | undefined;
}

/** Who asks a network for an account's live facts: a person waiting on a request, or background work. */
export type ProviderCaller = 'request' | 'background';

/** A media object's facts a network's rules look at (from the stored document and its probe). */
export interface PostMedia {
  id: string;
  mediaType: string;
  mimeType: string;
  size: number | null;
  status: string;
  width?: number | null | undefined;
  height?: number | null | undefined;
  durationSec?: number | null | undefined;
  fps?: number | null | undefined;
}

/** A post's media ids resolved in order; `indexes[j]` is where `media[j]` stands in the ids. */
export interface LoadedMedia {
  media: PostMedia[];
  /** The documents behind `media`, in the same order. */
  docs: MediaDoc[];
  indexes: number[];
  /** Ids that are unknown or another workspace's, as issues at ['mediaIds', i]. */
  issues: IssueDetail[];
}

/** What is checked: the post's own fields, whether from a request or from a stored draft. */
export interface PostFields {
  content: string;
  settings: unknown;
  threadReplies: readonly unknown[];
}

/** Whether Postdeck may read an account's numbers, and when not, why and what fixes it. */
export interface AnalyticsAccess {
  granted: boolean;
  /** The analytics scopes the account's grant lacks. */
  missingScopes: string[];
  reason: string | null;
  fix: string | null;
}

/** A network's publish as Postdeck follows it: its status in the network's words and what it means. */
export interface PublishState {
  /** The status as the network names it (recorded on the attempt, compared between polls). */
  status: string;
  outcome: 'published' | 'failed' | 'pending';
  /** The post ids the network released (empty while private or in moderation). */
  releaseIds: string[];
  /**
   * When failed: the network's reason, whether a new attempt may work (it certainly created nothing and the cause
   * may pass: it could not fetch our media, or its container expired unpublished), and the words for people.
   */
  failure: { reason: string | null; retryable: boolean; text: string } | null;
  /** The post's public URL when the network gave it (Instagram's permalink); else `releaseUrl` makes one. */
  releaseUrl?: string | null;
  /** While the network waits for uploaded bytes: how many it holds (null when it does not say). */
  awaitingUploadBytes: number | null;
  /** One line for the attempt's log. */
  description: string;
}

/** What a publish init needs: the checked post, its account, its kind and media, and the hook run as it leaves. */
export interface PublishInit {
  post: PostDoc;
  platform: PlatformDoc;
  kind: string;
  media: MediaDoc[];
  /** Records that the request is leaving (so a crash after it is never retried); call right before sending. */
  markSent(detail: string): Promise<void>;
  /**
   * For an init that publishes nothing yet (Instagram's containers): makes sure the attempt is still this run's
   * and renews its lease, without marking anything sent (a crash after it is retried). Call before the step
   * whose id the init returns; throws when another run took the attempt over.
   */
  stillHeld(): Promise<void>;
}

/** A network's counts for one post, as insights store them. */
export interface PostCounts {
  releaseId: string;
  views: number;
  likes: number;
  comments: number;
  shares: number;
}

/**
 * A released post whose numbers the network has not made yet (Instagram's insights lag up to 48 h and answer an
 * empty set meanwhile): not zero counts and not a post left out, so it is looked at again later.
 */
export interface CountsNotYet {
  releaseId: string;
  notYet: true;
}

/** A network's totals for one account, as insights store them. */
export interface AccountCounts {
  followers: number;
  following: number;
  /** Likes over all of the account's posts; null where the network gives no such total (Instagram). */
  likes: number | null;
  videos: number;
}

/** Whose connection starts: the workspace and who asked (core's Scope). */
export interface ConnectScope {
  readonly workspaceId: string;
  readonly accountId: string;
}

/** Where to send the person next: the network's consent page, valid until `expiresAt`. */
export interface StartedConnection {
  authorizeUrl: string;
  expiresAt: Date;
}

/** The query a network sends back to the callback. */
export interface ConnectCallback {
  state: string;
  code?: string | undefined;
  error?: string | undefined;
  errorDescription?: string | undefined;
}

/** How a callback ended: an account connected (or updated), or the person said no on the network. */
export type ConnectOutcome =
  | { outcome: 'connected'; platform: PlatformDoc; created: boolean; workspaceId: string; warning?: string }
  | { outcome: 'cancelled'; workspaceId: string; error: string; description: string };

/** A network refused a read for want of a scope the account did not grant. */
export class ScopeNotGranted extends Error {
  constructor(
    readonly scope: string,
    providerName: string,
  ) {
    super(`${providerName} refused the ${scope} scope`);
  }
}

/**
 * What one network does for Postdeck. One object per network, built by the composition root. `Deps` is core's
 * CoreDeps (a parameter so that CoreDeps, which holds the registry, and the port need not import each other).
 */
export interface Provider<Deps = unknown> {
  /** The `provider` value of its platforms. */
  readonly id: PlatformDoc['provider'];
  /** The network's name as people read it ("TikTok"). */
  readonly name: string;
  readonly connect: {
    /**
     * Starts connecting an account to the workspace: the consent page to send the person to. `binding` ties the
     * OAuth state to who started it (`session:<id>`, or a one-off value of the admin CLI).
     */
    start(deps: Deps, scope: ConnectScope, input: { binding: string }): Promise<StartedConnection>;
    /** Finishes a connection from the network's callback, refusing a state of another binding or network. */
    complete(deps: Deps, callback: ConnectCallback, binding: string): Promise<ConnectOutcome>;
    /** The consent page's origin, which the page's CSP `form-action` must allow. */
    readonly consentOrigin: string;
    /** True when the network is Postdeck's built-in emulator (no app credentials): pages say so. */
    readonly emulated: boolean;
    /** What in this server's setup keeps real posts from working on the network, in words; null when nothing. */
    setupWarning(deps: Deps): string | null;
  };
  readonly accounts: {
    /** What the account's grant allows insights to read. */
    analyticsAccess(platform: PlatformDoc): AnalyticsAccess;
    /**
     * Ends the connection under the account's token lease: revokes the grant (best effort), forgets its tokens
     * and cached facts, then runs `then`. Null when the lease is busy (a refresh runs).
     */
    disconnect<T>(deps: Deps, platform: PlatformDoc, then: () => Promise<T>): Promise<{ value: T } | null>;
    /**
     * Runs `work` under the account's token lease (no refresh, reconnect or disconnect beside it), waiting up to
     * `waitMs` for another holder; null when the lease could not be had in time.
     */
    underLease<T>(deps: Deps, platformId: string, work: () => Promise<T>, waitMs: number): Promise<{ value: T } | null>;
  };
  readonly rules: {
    /**
     * Checks a post against the network's rules for this account now. Issue paths are the operation's
     * (`['settings', 'privacy_level']`), media indexes point into the post's own `mediaIds`; `settings` is
     * what to store when there are no issues.
     */
    checkPost(
      deps: Deps,
      platform: PlatformDoc,
      fields: PostFields,
      loaded: LoadedMedia,
      caller: ProviderCaller,
    ): Promise<{ issues: IssueDetail[]; settings: Record<string, unknown> }>;
    /** The live posting schema of an account (`GET /platforms/{id}/schema`). */
    postingSchema(deps: Deps, platform: PlatformDoc): Promise<PostingSchemaBody>;
    /** How Postdeck renders a post's images for the network before storing the post; absent: sent as uploaded. */
    readonly images?: ImageRendering;
  };
  readonly publishing: {
    /** The kind of post the media make ("video", "photo"), or null when the network cannot post them. */
    postKind(media: readonly PostMedia[]): string | null;
    /** Whether the network takes replies under a post. */
    readonly threadReplies: boolean;
    /**
     * Sends the publish, or where the network publishes in two steps prepares it (Instagram: the containers);
     * the publishId returned is what `advance` follows. A publish whose bytes follow returns its upload step.
     * Throws PublishRefusal (final) or PublishHold (not before a time) when nothing was created.
     */
    init(deps: Deps, request: PublishInit): Promise<{ publishId: string; upload?: () => Promise<void> }>;
    /**
     * Says where a sent publish stands, first taking the step the network waits for from Postdeck, if any
     * (Instagram: `media_publish` of a container that finished processing; TikTok only reads). Safe to run again
     * and beside itself: a publish already made is read, never made twice. May throw PublishHold.
     */
    advance(deps: Deps, platform: PlatformDoc, publishId: string): Promise<PublishState>;
    /**
     * Whether a post published without an id may show its id later (TikTok releases it after moderation), so
     * the engine keeps asking for a while; false when a later read cannot tell more.
     */
    readonly idShownLater: boolean;
    /** The public URL of a published post (the profile's when the network has not released an id yet). */
    releaseUrl(handle: string | null, kind: string, releaseId: string | null): string | null;
    /** The words of a link to a published post. */
    releaseLinkLabel(): string;
  };
  readonly insights: {
    /** The scope post counts need, and the most posts one read takes. */
    readonly postsScope: string;
    readonly postsPerRead: number;
    /** The scope account totals need. */
    readonly totalsScope: string;
    /** Counts of released posts (absent ones are left out); `counted` is called per network call. */
    readPostCounts(
      deps: Deps,
      platform: PlatformDoc,
      releaseIds: string[],
      counted: () => void,
    ): Promise<Array<PostCounts | CountsNotYet>>;
    readAccountCounts(deps: Deps, platform: PlatformDoc, counted: () => void): Promise<AccountCounts>;
  };
  readonly frames: {
    /** The frame a photo post's slides are drawn in for this network (`POST /slides/composite`, generation). */
    readonly slides: SlideFrame;
  };
}

/** How far from each edge of a frame text must stay, in px: what the network's own overlays cover. */
export interface SafeArea {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** A frame slides are drawn in: its size in px and the safe area captions keep inside. */
export interface SlideFrame {
  width: number;
  height: number;
  safeArea: SafeArea;
}
