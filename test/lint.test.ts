import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** Lints a real file written into the tree (the type-aware linter only reads files it can see). */
async function lintProbe(folder: string, source: string): Promise<string[]> {
  const dir = path.resolve(folder, `lint-probe-${randomUUID().slice(0, 8)}`);
  const file = path.join(dir, 'probe.ts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, source);
  try {
    const [result] = await new ESLint().lintFiles([file]);
    return result?.messages.map((m) => `${m.ruleId}: ${m.message}`) ?? [];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the dependency rule', () => {
  it('fails when a file in src/core imports koa', async () => {
    const messages = await lintProbe('src/core', "import Koa from 'koa';\nexport const app = new Koa();\n");
    expect(messages).toContainEqual(expect.stringMatching(/^no-restricted-imports: .*src\/core must not use Koa/));
  });

  it('fails when core imports an adapter', async () => {
    const messages = await lintProbe('src/core', "export { createHttpApp } from '../../http/app.js';\n");
    expect(messages).toContainEqual(expect.stringMatching(/^no-restricted-imports: .*must not import an adapter/));
  });

  it('fails when core imports the TikTok emulator', async () => {
    const messages = await lintProbe(
      'src/core',
      "export { startTikTokEmulator } from '../../emulators/tiktok/server.js';\n",
    );
    expect(messages).toContainEqual(expect.stringMatching(/^no-restricted-imports: .*must not import an emulator/));
  });

  it('allows the same import in an adapter', async () => {
    const messages = await lintProbe('src/http', "import Koa from 'koa';\nexport const app = new Koa();\n");
    expect(messages).toEqual([]);
  });
});
