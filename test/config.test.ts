import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const emptyDir = () => mkdtempSync(path.join(os.tmpdir(), 'postdeck-config-'));

describe('loadConfig', () => {
  it('applies the documented defaults and freezes the result', () => {
    const cwd = emptyDir();
    const config = loadConfig({}, { cwd });
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe(path.join(cwd, 'data'));
    expect(config.mongo.uri).toBeUndefined();
    expect(config.mongo.ferretCacheDir).toBe(path.join(cwd, 'data', 'cache', 'ferretdb'));
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.plans.free?.imageCredits).toBe(0);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.mongo)).toBe(true);
  });

  it('refuses private webhook endpoints unless WEBHOOKS_ALLOW_PRIVATE is true', () => {
    expect(loadConfig({}, { cwd: emptyDir() }).webhooks.allowPrivate).toBe(false);
    expect(loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'true' }, { cwd: emptyDir() }).webhooks.allowPrivate).toBe(true);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'sometimes' }, { cwd: emptyDir() })).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE/,
    );
  });

  it('reports every problem at once, each with its variable name', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', MONGODB_URI: 'postgres://x', LOG_LEVEL: 'loud' }, { cwd: emptyDir() });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('MONGODB_URI');
    expect(problems).toContain('LOG_LEVEL');
  });

  it('reads .env, with real variables taking precedence', () => {
    const cwd = emptyDir();
    writeFileSync(path.join(cwd, '.env'), 'PORT=9000\nDATA_DIR=/srv/postdeck\n');
    const config = loadConfig({ PORT: '9100' }, { cwd });
    expect(config.port).toBe(9100);
    expect(config.dataDir).toBe('/srv/postdeck');
  });

  it('takes an empty value in .env as unset: the default, or no such setting', () => {
    const cwd = emptyDir();
    writeFileSync(path.join(cwd, '.env'), 'PORT=\nOPENAI_BASE_URL=\nTIKTOK_CLIENT_KEY=\nTIKTOK_CLIENT_SECRET=\n');
    const config = loadConfig({}, { cwd });
    expect(config.port).toBe(8080);
    expect(config.ai.baseUrl).toBeUndefined();
    expect(config.tiktok.clientKey).toBeUndefined();
    // An empty real variable leaves the value in .env in force, as before.
    writeFileSync(path.join(cwd, '.env'), 'PORT=9000\n');
    expect(loadConfig({ PORT: '' }, { cwd }).port).toBe(9000);
  });

  it('loads a plan table from POSTDECK_PLANS_FILE and rejects a free plan with image credits', () => {
    const cwd = emptyDir();
    writeFileSync(
      path.join(cwd, 'plans.json'),
      JSON.stringify({
        free: { captionCredits: 1, imageCredits: 0, monthlyPosts: 2 },
        big: { captionCredits: 9, imageCredits: 9, monthlyPosts: 9 },
      }),
    );
    expect(loadConfig({ POSTDECK_PLANS_FILE: 'plans.json' }, { cwd }).plans.big?.monthlyPosts).toBe(9);

    writeFileSync(
      path.join(cwd, 'bad.json'),
      JSON.stringify({ free: { captionCredits: 1, imageCredits: 5, monthlyPosts: 2 } }),
    );
    expect(() => loadConfig({ POSTDECK_PLANS_FILE: 'bad.json' }, { cwd })).toThrow(/0 image credits/);
  });

  it('starts new accounts on DEFAULT_PLAN: unlimited when unset, free for a table without it, a named plan if it exists', () => {
    const cwd = emptyDir();
    expect(loadConfig({}, { cwd }).defaultPlan).toBe('unlimited');
    expect(loadConfig({}, { cwd }).plans.unlimited?.monthlyPosts).toBe(1_000_000);
    expect(loadConfig({ DEFAULT_PLAN: 'creator' }, { cwd }).defaultPlan).toBe('creator');
    writeFileSync(
      path.join(cwd, 'plans.json'),
      JSON.stringify({ free: { captionCredits: 1, imageCredits: 0, monthlyPosts: 2 } }),
    );
    expect(loadConfig({ POSTDECK_PLANS_FILE: 'plans.json' }, { cwd }).defaultPlan).toBe('free');
    expect(() => loadConfig({ DEFAULT_PLAN: 'gold' }, { cwd })).toThrow(
      /DEFAULT_PLAN: "gold" is not in the plan table/,
    );
  });
});
