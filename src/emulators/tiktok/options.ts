/** One MiB: TikTok's "MB" in the media-transfer guide is binary (its 4 MB example is 4,194,304 bytes). */
export const MIB = 1024 * 1024;

/** Requests per sliding minute per access token (contract 3). */
export interface RateLimits {
  userInfo: number;
  creatorInfo: number;
  videoInit: number;
  inboxInit: number;
  contentInit: number;
  status: number;
  videoQuery: number;
}

/** The chunk rules of contract 4.3, in bytes; options so a test can shrink the scale. */
export interface ChunkRules {
  /** Smallest chunk, except a whole file below this size sent as one chunk (5 MiB). */
  minBytes: number;
  /** Largest chunk but the last (64 MiB). */
  maxBytes: number;
  /** Largest last chunk, which takes the remainder (128 MiB). */
  lastMaxBytes: number;
  /** Most chunks (1000). */
  maxCount: number;
}

/** The emulated app registration, its audit status, lifetimes and limits; tests shorten the lifetimes and limits. */
export interface EmulatorOptions {
  clientKey: string;
  clientSecret: string;
  /** Registered redirect URIs; an authorize or token request must use one of them exactly. */
  redirectUris: string[];
  /** Access-token lifetime in seconds (contract 7 default: 7200, the Nov 2026 docs). */
  accessTtlSec: number;
  /** Refresh-token lifetime in seconds (default 15552000, 180 days). */
  refreshTtlSec: number;
  /** Authorization-code lifetime in seconds (TikTok does not document one; short, like every provider). */
  codeTtlSec: number;
  rateLimits: RateLimits;
  /** Which spelling validation errors use: the general table's `invalid_params` or the init tables' `invalid_param`. */
  invalidParamsCode: 'invalid_params' | 'invalid_param';
  /**
   * The app's verified URL properties for PULL_FROM_URL (contract 4.7): a bare domain (`media.example.com`) covers
   * itself and its subdomains; an entry with a scheme (`https://host/path/`) is a prefix matched exactly.
   */
  verifiedUrlPrefixes: string[];
  /** Accept `http` pull URLs (TikTok never does); for local Postdeck, which serves media over http on loopback. */
  allowHttpPullUrls: boolean;
  /**
   * Fetch pull URLs starting with `from` at `to` instead (same rest), checked as given: in Docker the
   * media URLs name the browser's `localhost`, which the emulator's container reaches by service name.
   */
  pullVia?: { from: string; to: string };
  /** false: the app is unaudited (private accounts only, SELF_ONLY, at most 5 posting users a day). */
  audited: boolean;
  /** The audited app's daily cap of distinct posting users (`reached_active_user_cap`); null for none. */
  activeUserCap: number | null;
  /** Direct posts per creator per 24 h (contract 3, "typically around 15"). */
  dailyPostCap: number;
  /** Pending (unposted) inbox shares per user per 24 h. */
  pendingShareCap: number;
  /** How long an upload_url works after init, in seconds (1 h). */
  uploadUrlTtlSec: number;
  /** How long a PULL_FROM_URL download may take in total before it fails, in ms (1 h). */
  pullTimeoutMs: number;
  chunkRules: ChunkRules;
  /** Largest photo (20 MB, read as MiB like every other TikTok "MB"). */
  maxPhotoBytes: number;
  /** Largest video (4 GB, read as GiB). */
  maxVideoBytes: number;
  /**
   * Known scopes the app is not approved for: a consent request naming one fails with `invalid_scope`, as TikTok
   * refuses an app without the product behind a scope (an app without the Display API: video.list, user.info.stats).
   */
  unapprovedScopes: string[];
  /** The seed of the curve along which published posts' counts grow (contract 8.4): same seed, same numbers. */
  statsSeed: string;
  /** Where received and pulled media bytes are written while checked; a fresh temp directory when unset. */
  mediaDir?: string;
}

/** Start settings: any option, with rate limits and chunk rules overridable one field at a time. */
export type EmulatorSettings = Partial<Omit<EmulatorOptions, 'rateLimits' | 'chunkRules'>> & {
  rateLimits?: Partial<RateLimits>;
  chunkRules?: Partial<ChunkRules>;
};

/** Defaults per contract section 7; the client key and secret are fixed so local setups can share them. */
export const DEFAULT_EMULATOR_OPTIONS: EmulatorOptions = {
  clientKey: 'emulator-client-key',
  clientSecret: 'emulator-client-secret',
  redirectUris: [],
  accessTtlSec: 7200,
  refreshTtlSec: 15_552_000,
  codeTtlSec: 300,
  rateLimits: {
    userInfo: 600,
    creatorInfo: 20,
    videoInit: 6,
    inboxInit: 6,
    contentInit: 6,
    status: 30,
    videoQuery: 600,
  },
  invalidParamsCode: 'invalid_params',
  verifiedUrlPrefixes: [],
  allowHttpPullUrls: false,
  audited: true,
  activeUserCap: null,
  dailyPostCap: 15,
  pendingShareCap: 5,
  uploadUrlTtlSec: 3600,
  pullTimeoutMs: 3_600_000,
  chunkRules: { minBytes: 5 * MIB, maxBytes: 64 * MIB, lastMaxBytes: 128 * MIB, maxCount: 1000 },
  maxPhotoBytes: 20 * MIB,
  maxVideoBytes: 4 * 1024 * MIB,
  statsSeed: 'postdeck',
  unapprovedScopes: [],
};

/** The full options: defaults, then the settings (rate limits and chunk rules merged field by field). */
export function resolveOptions(settings: EmulatorSettings): EmulatorOptions {
  const { rateLimits, chunkRules, ...rest } = settings;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  return {
    ...DEFAULT_EMULATOR_OPTIONS,
    ...defined,
    rateLimits: { ...DEFAULT_EMULATOR_OPTIONS.rateLimits, ...rateLimits },
    chunkRules: { ...DEFAULT_EMULATOR_OPTIONS.chunkRules, ...chunkRules },
  };
}

/** Scopes the emulated app is approved for (contract 1.4 and 1.5). */
export const KNOWN_SCOPES = new Set([
  'user.info.basic',
  'user.info.profile',
  'user.info.stats',
  'video.publish',
  'video.upload',
  'video.list',
]);

/** The older docs' lifetimes (24 h access, 365 d refresh; contract 1.2): spread over the options to emulate them. */
export const LEGACY_LIFETIMES: Pick<EmulatorOptions, 'accessTtlSec' | 'refreshTtlSec'> = {
  accessTtlSec: 86_400,
  refreshTtlSec: 31_536_000,
};
