/** One MiB: Meta's image limit reads "less than 8 MiB". */
export const MIB = 1024 * 1024;

/** The emulated Instagram app and Instagram's limits (contract sections 1, 2.4 and 3); tests shrink the times. */
export interface InstagramEmulatorOptions {
  /** The Instagram app id (`client_id`) and secret. */
  appId: string;
  appSecret: string;
  /** Registered redirect URIs; authorize and the code exchange must use one of them exactly. */
  redirectUris: string[];
  /** Authorization-code lifetime (1 h, single use). */
  codeTtlSec: number;
  /** Short-lived token lifetime (1 h). */
  shortTokenTtlSec: number;
  /** Long-lived token lifetime: `expires_in` of the exchange and refresh (5183944 s, about 60 days). */
  longTokenTtlSec: number;
  /** A long-lived token may be refreshed only once it is this old (24 h). */
  refreshMinAgeSec: number;
  /** How long an image container stays IN_PROGRESS after its media was fetched. */
  imageProcessingMs: number;
  /** How long a video or Reels container stays IN_PROGRESS after its media was fetched. */
  videoProcessingMs: number;
  /** An unpublished container turns EXPIRED this long after creation (24 h). */
  containerTtlSec: number;
  /** Publishes allowed per rolling 24 h (`quota_total`; 50 per the references, 100 per the guide). */
  quotaTotal: number;
  /** Containers one account may create per rolling 24 h (400, quoted by a peer). */
  containerCap: number;
  /** Caption limits: characters, hashtags (30; 5 since the Dec 2025 change) and @ mentions (20). */
  maxCaptionChars: number;
  maxHashtags: number;
  maxMentions: number;
  /** Collaborators a container may name on creation. */
  maxCollaborators: number;
  /** Image rules for feed images and carousel items. */
  maxImageBytes: number;
  minImageWidth: number;
  maxImageWidth: number;
  minAspect: number;
  maxAspect: number;
  /** Video rules (Reels and carousel videos): size, duration, columns, aspect ratio. */
  maxVideoBytes: number;
  minVideoSec: number;
  maxVideoSec: number;
  maxVideoWidth: number;
  /** A fetch of image_url/video_url taking longer than this fails with -2 / 2207003. */
  fetchTimeoutMs: number;
  /** Calls per hour per app the X-App-Usage percentage is measured against (200 x users). */
  appCallsPerHour: number;
}

/** Defaults per the contract; the app id and secret are fixed so local setups can share them. */
export const DEFAULT_INSTAGRAM_OPTIONS: InstagramEmulatorOptions = {
  appId: 'emulator-instagram-app-id',
  appSecret: 'emulator-instagram-app-secret',
  redirectUris: [],
  codeTtlSec: 3600,
  shortTokenTtlSec: 3600,
  longTokenTtlSec: 5_183_944,
  refreshMinAgeSec: 86_400,
  imageProcessingMs: 2000,
  videoProcessingMs: 10_000,
  containerTtlSec: 86_400,
  quotaTotal: 50,
  containerCap: 400,
  maxCaptionChars: 2200,
  maxHashtags: 30,
  maxMentions: 20,
  maxCollaborators: 3,
  maxImageBytes: 8 * MIB,
  minImageWidth: 320,
  maxImageWidth: 1440,
  minAspect: 0.8,
  maxAspect: 1.91,
  maxVideoBytes: 300 * MIB,
  minVideoSec: 3,
  maxVideoSec: 15 * 60,
  maxVideoWidth: 1920,
  fetchTimeoutMs: 30_000,
  appCallsPerHour: 200,
};

/** The options a start or `PATCH /__control/settings` may change. */
export type InstagramEmulatorSettings = Partial<InstagramEmulatorOptions>;

/** The full options: defaults, then the defined settings. */
export function resolveInstagramOptions(settings: InstagramEmulatorSettings): InstagramEmulatorOptions {
  const defined = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_INSTAGRAM_OPTIONS, ...defined };
}

/** Scopes of Business Login for Instagram (contract 1.1). */
export const KNOWN_SCOPES = new Set([
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_insights',
  'instagram_business_manage_comments',
  'instagram_business_manage_messages',
]);
