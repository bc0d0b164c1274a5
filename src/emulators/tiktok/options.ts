/** The emulated app registration and lifetimes; tests shorten the lifetimes and limits. */
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
  /** Requests per sliding minute per access token (contract 3). */
  rateLimits: { userInfo: number; creatorInfo: number };
}

/** Defaults per contract section 7; the client key and secret are fixed so local setups can share them. */
export const DEFAULT_EMULATOR_OPTIONS: EmulatorOptions = {
  clientKey: 'emulator-client-key',
  clientSecret: 'emulator-client-secret',
  redirectUris: [],
  accessTtlSec: 7200,
  refreshTtlSec: 15_552_000,
  codeTtlSec: 300,
  rateLimits: { userInfo: 600, creatorInfo: 20 },
};

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
