import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { externalTikTokEmulator, tiktokClientConfig } from '../../src/app/tiktok-setup.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const emptyDir = () => mkdtempSync(path.join(os.tmpdir(), 'postdeck-config-'));

describe('TikTok settings', () => {
  it("defaults to TikTok's hosts and no credentials", () => {
    expect(loadConfig({}, { cwd: emptyDir() }).tiktok).toEqual({
      clientKey: undefined,
      clientSecret: undefined,
      authBaseUrl: 'https://www.tiktok.com',
      apiBaseUrl: 'https://open.tiktokapis.com',
      analytics: true,
    });
  });

  it('turns analytics off with TIKTOK_ANALYTICS=false, for the app and the emulator alike', () => {
    const withApp = loadConfig(
      { TIKTOK_ANALYTICS: 'false', TIKTOK_CLIENT_KEY: 'key', TIKTOK_CLIENT_SECRET: 'secret' },
      { cwd: emptyDir() },
    );
    expect(withApp.tiktok.analytics).toBe(false);
    expect(tiktokClientConfig(withApp).analytics).toBe(false);
    const emulated = loadConfig({ TIKTOK_ANALYTICS: '0' }, { cwd: emptyDir() });
    expect(tiktokClientConfig(emulated, { apiUrl: 'http://e', authUrl: 'http://e' }).analytics).toBe(false);
    expect(() => loadConfig({ TIKTOK_ANALYTICS: 'off' }, { cwd: emptyDir() })).toThrow(ConfigError);
  });

  it('reads the credentials and trims trailing slashes from the hosts', () => {
    const env = {
      TIKTOK_CLIENT_KEY: 'key',
      TIKTOK_CLIENT_SECRET: 'secret',
      TIKTOK_AUTH_BASE_URL: 'http://127.0.0.1:4000/',
      TIKTOK_API_BASE_URL: 'http://127.0.0.1:4000//',
    };
    expect(loadConfig(env, { cwd: emptyDir() }).tiktok).toEqual({
      clientKey: 'key',
      clientSecret: 'secret',
      authBaseUrl: 'http://127.0.0.1:4000',
      apiBaseUrl: 'http://127.0.0.1:4000',
      analytics: true,
    });
  });

  it('refuses a client key without its secret', () => {
    expect(() => loadConfig({ TIKTOK_CLIENT_KEY: 'key' }, { cwd: emptyDir() })).toThrow(ConfigError);
  });

  it('uses an emulator already running at TIKTOK_EMULATOR_URL when no credentials are set, the consent page at its public address', () => {
    const env = {
      TIKTOK_EMULATOR_URL: 'http://tiktok-emulator:8090/',
      TIKTOK_EMULATOR_PUBLIC_URL: 'http://localhost:8090',
    };
    const config = loadConfig(env, { cwd: emptyDir() });
    expect(externalTikTokEmulator(config)).toEqual({
      apiUrl: 'http://tiktok-emulator:8090',
      authUrl: 'http://localhost:8090',
    });
    expect(tiktokClientConfig(config)).toMatchObject({
      apiBaseUrl: 'http://tiktok-emulator:8090',
      authBaseUrl: 'http://localhost:8090',
      clientKey: 'emulator-client-key',
      redirectUri: 'http://localhost:8080/platforms/tiktok/callback',
      emulator: true,
    });
    // One address serves both when the browser reaches the emulator where the server does.
    const same = loadConfig({ TIKTOK_EMULATOR_URL: 'http://127.0.0.1:8090' }, { cwd: emptyDir() });
    expect(externalTikTokEmulator(same)).toEqual({ apiUrl: 'http://127.0.0.1:8090', authUrl: 'http://127.0.0.1:8090' });
  });

  it('ignores TIKTOK_EMULATOR_URL once credentials are set, and refuses a public address alone', () => {
    const real = loadConfig(
      { TIKTOK_CLIENT_KEY: 'key', TIKTOK_CLIENT_SECRET: 'secret', TIKTOK_EMULATOR_URL: 'http://tiktok-emulator:8090' },
      { cwd: emptyDir() },
    );
    expect(externalTikTokEmulator(real)).toBeUndefined();
    expect(tiktokClientConfig(real)).toMatchObject({ apiBaseUrl: 'https://open.tiktokapis.com', clientKey: 'key' });
    expect(() => loadConfig({ TIKTOK_EMULATOR_PUBLIC_URL: 'http://localhost:8090' }, { cwd: emptyDir() })).toThrow(
      /TIKTOK_EMULATOR_PUBLIC_URL: set TIKTOK_EMULATOR_URL too/,
    );
  });
});
