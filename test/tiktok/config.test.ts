import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const emptyDir = () => mkdtempSync(path.join(os.tmpdir(), 'postdeck-config-'));

describe('TikTok settings', () => {
  it("defaults to TikTok's hosts and no credentials", () => {
    expect(loadConfig({}, { cwd: emptyDir() }).tiktok).toEqual({
      clientKey: undefined,
      clientSecret: undefined,
      authBaseUrl: 'https://www.tiktok.com',
      apiBaseUrl: 'https://open.tiktokapis.com',
    });
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
    });
  });

  it('refuses a client key without its secret', () => {
    expect(() => loadConfig({ TIKTOK_CLIENT_KEY: 'key' }, { cwd: emptyDir() })).toThrow(ConfigError);
  });
});
