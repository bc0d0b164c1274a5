import { z } from 'zod';
import { envBoolean } from './values.js';

const port = z.coerce.number().int().min(0).max(65535);
const trimmed = (url: string): string => url.replace(/\/+$/, '');

/** The social networks' environment variables (part of the one schema in config.ts). */
export const NetworksEnvSchema = z.object({
  TIKTOK_CLIENT_KEY: z.string().min(1).optional(),
  TIKTOK_CLIENT_SECRET: z.string().min(1).optional(),
  TIKTOK_AUTH_BASE_URL: z.url().default('https://www.tiktok.com'),
  TIKTOK_API_BASE_URL: z.url().default('https://open.tiktokapis.com'),
  TIKTOK_ANALYTICS: envBoolean.default(true),
  TIKTOK_EMULATOR_PORT: port.default(0),
  TIKTOK_EMULATOR_URL: z.url().optional(),
  TIKTOK_EMULATOR_PUBLIC_URL: z.url().optional(),
  INSTAGRAM_APP_ID: z.string().min(1).optional(),
  INSTAGRAM_APP_SECRET: z.string().min(1).optional(),
  INSTAGRAM_EMULATOR_PORT: port.default(0),
  INSTAGRAM_EMULATOR_URL: z.url().optional(),
});
type NetworksEnv = z.infer<typeof NetworksEnvSchema>;

/** The networks' app registrations, or their built-in emulators when none is configured. */
export interface NetworkSettings {
  /** The TikTok app registration and hosts; the base URLs point at the emulator in tests. */
  readonly tiktok: {
    readonly clientKey: string | undefined;
    readonly clientSecret: string | undefined;
    readonly authBaseUrl: string;
    readonly apiBaseUrl: string;
    readonly analytics: boolean; // false: connecting asks only for the publishing scopes (no Display API)
  };
  /** No TikTok credentials: the built-in emulator's port (0: any), or one elsewhere (`url` for calls, `publicUrl` for browsers). */
  readonly tiktokEmulator: { readonly port: number; readonly url?: string; readonly publicUrl?: string };
  /**
   * The Instagram app (Instagram Login); without it, the emulator at `emulatorUrl` (`postdeck emulate instagram`),
   * else the built-in one on `emulatorPort` (0: any, then kept).
   */
  readonly instagram: {
    readonly appId: string | undefined;
    readonly appSecret: string | undefined;
    readonly emulatorPort: number;
    readonly emulatorUrl: string | undefined;
  };
}

export function networkSettings(vars: NetworksEnv): NetworkSettings {
  return {
    tiktok: {
      clientKey: vars.TIKTOK_CLIENT_KEY,
      clientSecret: vars.TIKTOK_CLIENT_SECRET,
      authBaseUrl: trimmed(vars.TIKTOK_AUTH_BASE_URL),
      apiBaseUrl: trimmed(vars.TIKTOK_API_BASE_URL),
      analytics: vars.TIKTOK_ANALYTICS,
    },
    tiktokEmulator: {
      port: vars.TIKTOK_EMULATOR_PORT,
      url: vars.TIKTOK_EMULATOR_URL?.replace(/\/+$/, ''),
      publicUrl: (vars.TIKTOK_EMULATOR_PUBLIC_URL ?? vars.TIKTOK_EMULATOR_URL)?.replace(/\/+$/, ''),
    },
    instagram: {
      appId: vars.INSTAGRAM_APP_ID,
      appSecret: vars.INSTAGRAM_APP_SECRET,
      emulatorPort: vars.INSTAGRAM_EMULATOR_PORT,
      emulatorUrl: vars.INSTAGRAM_EMULATOR_URL?.replace(/\/+$/, ''),
    },
  };
}

/** Network settings that only make sense together. */
export function networkProblems(vars: NetworksEnv): string[] {
  const problems: string[] = [];
  if (Boolean(vars.TIKTOK_CLIENT_KEY) !== Boolean(vars.TIKTOK_CLIENT_SECRET)) {
    problems.push('TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET: set both or neither');
  }
  if (vars.TIKTOK_EMULATOR_PUBLIC_URL && !vars.TIKTOK_EMULATOR_URL) {
    problems.push('TIKTOK_EMULATOR_PUBLIC_URL: set TIKTOK_EMULATOR_URL too (the address Postdeck calls)');
  }
  if (Boolean(vars.INSTAGRAM_APP_ID) !== Boolean(vars.INSTAGRAM_APP_SECRET)) {
    problems.push('INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET: set both or neither');
  }
  return problems;
}
