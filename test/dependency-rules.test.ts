import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, statSync, utimesSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A broken rule as `npm run check:deps` reports it: the rule, the import, and the rule's comment. */
interface Violation {
  rule: string;
  from: string;
  to: string;
  comment: string;
}

/**
 * Writes `files` into the real tree (`<probe>` in a path or a source is a folder name of its own), checks them
 * against the project's rules with the project's config, as `npm run check:deps` does, and removes
 * them again. Only the probe files are cruised (their imports outside the probe folder are resolved,
 * not followed), so the answer is about the probes alone and comes in well under a second. The folders
 * that held a probe get their dates back: a newer src/ folder makes every spawned `postdeck` rebuild
 * dist/ first (bin/dist.js), a minute each on a busy machine.
 */
async function cruiseProbe(files: Record<string, string>): Promise<{ probe: string; violations: Violation[] }> {
  const probe = `dep-probe-${randomUUID().slice(0, 8)}`;
  const created: string[] = [];
  const parents = new Map<string, Stats>();
  try {
    const written = Object.entries(files).map(([name, source]) => {
      if (!name.includes('/<probe>/')) throw new Error(`a probe file goes in a <probe> folder: ${name}`);
      const file = name.replaceAll('<probe>', probe);
      const dir = path.resolve(ROOT, path.dirname(file));
      const parent = path.resolve(ROOT, name.slice(0, name.indexOf('/<probe>')));
      if (!parents.has(parent)) parents.set(parent, statSync(parent));
      const firstNew = mkdirSync(dir, { recursive: true });
      if (firstNew) created.push(firstNew);
      writeFileSync(path.resolve(ROOT, file), source.replaceAll('<probe>', probe));
      return file;
    });
    const options = await extractDepcruiseOptions(path.resolve(ROOT, '.dependency-cruiser.js'));
    const tsConfig = extractTSConfig(path.resolve(ROOT, options.tsConfig?.fileName ?? 'tsconfig.json'));
    // Every module outside the probe folder is resolved but not followed.
    const doNotFollow = { path: `^(?!.*/${probe}/)` };
    const { output } = await cruise(written, { ...options, baseDir: ROOT, doNotFollow }, {}, { tsConfig });
    const result = output as ICruiseResult;
    const comments = new Map(result.summary.ruleSetUsed?.forbidden?.map((rule) => [rule.name, rule.comment ?? '']));
    const violations = result.summary.violations
      .filter((v) => v.from.includes(probe))
      .map((v) => ({ rule: v.rule.name, from: v.from, to: v.to, comment: comments.get(v.rule.name) ?? '' }));
    return { probe, violations };
  } finally {
    for (const dir of created) rmSync(dir, { recursive: true, force: true });
    for (const [parent, stats] of parents) utimesSync(parent, stats.atimeMs / 1000, stats.mtimeMs / 1000);
  }
}

describe('the dependency rules', () => {
  it('leave the dates of the src/ folders that held a probe as they were', async () => {
    const before = statSync(path.resolve(ROOT, 'src/core')).mtimeMs;
    await cruiseProbe({ 'src/core/<probe>/probe.ts': 'export const probe = 1;\n' });
    // Restored to the microsecond at best (the filesystem keeps nanoseconds): never newer than it was.
    const after = statSync(path.resolve(ROOT, 'src/core')).mtimeMs;
    expect(after).toBeLessThanOrEqual(before);
    expect(before - after).toBeLessThan(1);
  });

  it('fail when a file in src/core imports koa', async () => {
    const { probe, violations } = await cruiseProbe({
      'src/core/<probe>/probe.ts': "import Koa from 'koa';\nexport const app = new Koa();\n",
    });
    expect(violations).toEqual([
      {
        rule: 'core-not-to-koa',
        from: `src/core/${probe}/probe.ts`,
        to: expect.stringMatching(/^node_modules\/koa\//),
        comment: expect.stringMatching(
          /^src\/core must not use Koa: take plain inputs and a Scope; HTTP lives in src\/http/,
        ),
      },
    ]);
  });

  it('fail on an import cycle, also when one side imports only a type', async () => {
    const { probe, violations } = await cruiseProbe({
      'src/core/<probe>/a.ts': "import { b } from './b.js';\nexport type A = { b: typeof b };\n",
      'src/core/<probe>/b.ts': "import type { A } from './a.js';\nexport const b: A | null = null;\n",
    });
    expect(violations).toContainEqual({
      rule: 'no-circular',
      from: `src/core/${probe}/a.ts`,
      to: `src/core/${probe}/b.ts`,
      comment: expect.stringMatching(/^Import cycle: break it by moving the piece both sides need into its own module/),
    });
    expect(violations.every((v) => v.rule === 'no-circular')).toBe(true);
  });

  it('fail when an emulator imports from src/http', async () => {
    const { probe, violations } = await cruiseProbe({
      'src/emulators/<probe>/probe.ts': "export { escapeHtml } from '../../http/shared/escape-html.js';\n",
    });
    expect(violations).toEqual([
      {
        rule: 'emulators-import-nothing-of-ours',
        from: `src/emulators/${probe}/probe.ts`,
        to: 'src/http/shared/escape-html.ts',
        comment: expect.stringMatching(
          /^An emulator stands in for an outside service and imports nothing of the project/,
        ),
      },
    ]);
  });

  it('fail when core imports an adapter', async () => {
    const { probe, violations } = await cruiseProbe({
      'src/core/<probe>/probe.ts': "export { createHttpApp } from '../../http/app.js';\n",
    });
    expect(violations).toEqual([
      {
        rule: 'core-not-to-adapters',
        from: `src/core/${probe}/probe.ts`,
        to: 'src/http/app.ts',
        comment: expect.stringMatching(/^src\/core must not import an adapter .*: adapters depend on core/),
      },
    ]);
  });

  it('fail when core imports the TikTok emulator', async () => {
    const { violations } = await cruiseProbe({
      'src/core/<probe>/probe.ts': "export { startTikTokEmulator } from '../../emulators/tiktok/server.js';\n",
    });
    expect(violations).toEqual([
      expect.objectContaining({
        rule: 'core-not-to-emulators',
        to: 'src/emulators/tiktok/server.ts',
        comment: expect.stringMatching(/^src\/core must not import an emulator/),
      }),
    ]);
  });

  it('fail when a shared core module imports a provider folder, and allow the port', async () => {
    const { probe, violations } = await cruiseProbe({
      'src/core/<probe>/probe.ts':
        "export { checkTikTokPost } from '../providers/tiktok/rules/check-post.js';\n" +
        "export type { Provider } from '../providers/port.js';\n",
    });
    expect(violations).toEqual([
      {
        rule: 'core-shared-not-to-provider-folders',
        from: `src/core/${probe}/probe.ts`,
        to: 'src/core/providers/tiktok/rules/check-post.ts',
        comment: expect.stringMatching(/^src\/core's shared modules .* reach a network only through the provider port/),
      },
    ]);
  });

  it('allow a provider folder its own modules', async () => {
    const { violations } = await cruiseProbe({
      'src/core/providers/tiktok/<probe>/probe.ts': "export { checkTikTokPost } from '../rules/check-post.js';\n",
    });
    expect(violations).toEqual([]);
  });

  it('fail when src/http imports a file of src/mcp or src/bots', async () => {
    const { probe, violations } = await cruiseProbe({
      'src/mcp/<probe>/tool.ts': 'export const tool = 1;\n',
      'src/bots/<probe>/bot.ts': 'export const bot = 1;\n',
      'src/http/<probe>/probe.ts':
        "export { tool } from '../../mcp/<probe>/tool.js';\nexport { bot } from '../../bots/<probe>/bot.js';\n",
    });
    expect(violations.map((v) => [v.rule, v.from, v.to])).toEqual(
      expect.arrayContaining([
        ['adapters-not-to-each-other', `src/http/${probe}/probe.ts`, `src/mcp/${probe}/tool.ts`],
        ['adapters-not-to-each-other', `src/http/${probe}/probe.ts`, `src/bots/${probe}/bot.ts`],
      ]),
    );
    expect(violations).toHaveLength(2);
    expect(violations[0]?.comment).toMatch(/^Adapters \(src\/http, src\/mcp, src\/bots\) never import each other/);
  });

  it('allow the same koa import in src/http', async () => {
    const { violations } = await cruiseProbe({
      'src/http/<probe>/probe.ts': "import Koa from 'koa';\nexport const app = new Koa();\n",
    });
    expect(violations).toEqual([]);
  });
});
