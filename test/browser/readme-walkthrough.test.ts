import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { imagesLoaded, openBrowser, SCREENSHOTS } from '../support/chat-cards.js';
import { ShellSession, shellBlocks, skipAfterFirstFailure, type CommandResult } from '../support/readme.js';
import { freePort, interruptGroup } from '../support/spawn.js';

// The README followed literally from the top, in a fresh clone of the commit under test: its shell
// blocks run as written in one bash session, its pages in Debian's Chromium, until the carousel it
// posts is PUBLISHED. What differs from a person's machine, and only that:
// - `npm ci` is replaced by a symlink to this checkout's node_modules (same lock file; no minutes
//   of install, no network);
// - PORT is set to a free port, and `localhost:8080` in the README reads `localhost:<that port>`;
// - FERRETDB_CACHE_DIR points at the FerretDB binary the test run already built (the README's
//   "first start builds the database emulator", skipped);
// - POSTDECK_CONFIG_DIR and npm's cache are temporary directories, so the person's own key and
//   npm cache are untouched;
// - the photos the README uploads (slide1.jpg ...) are drawn here, since they are the reader's own.
const README_FROM = '## Run it';
const README_PORT = 'localhost:8080';
const LOGS = path.resolve('test-artifacts');
const owner = { name: 'Rita Reader', email: 'rita@example.test', password: 'readme walkthrough password 1' };
const workspaceName = "Rita Reader's workspace";
const COLOURS = ['#d6336c', '#1c7ed6', '#2b8a3e', '#f08c00'];

let tmp: string;
let clone: string;
let port: number;
let publicUrl: string;
let section: string;
let blocks: string[][];
let env: NodeJS.ProcessEnv;
let server: ChildProcess | undefined;
let serverStderr = '';
let shell: ShellSession;
let browser: Browser;
let page: Page;
/** Navigations that answered an error, and scripts that threw, on any page so far. */
const pageProblems: string[] = [];
/** Values for the README's placeholders (`<platformId>`, ...), read from earlier answers. */
const values: Record<string, string> = {};
let connectedAccount: string;
let uploaded: string[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'postdeck-readme-'));
  clone = path.join(tmp, 'postdeck');
  // The commit under test (CI runs in a fresh clone whose HEAD is it; locally, commit first).
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '--quiet', root, clone]);
  execFileSync('git', ['-C', clone, 'checkout', '--quiet', '--detach', head]);

  port = await freePort();
  const readme = readFileSync(path.join(clone, 'README.md'), 'utf8').replaceAll(README_PORT, `localhost:${port}`);
  ({ section, blocks } = shellBlocks(readme, README_FROM));

  // A person's shell: none of Postdeck's settings from the environment the tests run in, no
  // node_modules/.bin of this checkout on the PATH.
  const {
    MONGODB_URI: _uri,
    PUBLIC_URL: _publicUrl,
    PUBLIC_BASE_URL: _publicBaseUrl,
    DATA_DIR: _dataDir,
    HOST: _host,
    POSTDECK_SERVER: _server,
    POSTDECK_API_KEY: _apiKey,
    TIKTOK_CLIENT_KEY: _tiktokKey,
    TIKTOK_CLIENT_SECRET: _tiktokSecret,
    OPENAI_API_KEY: _openaiKey,
    OPENAI_BASE_URL: _openaiUrl,
    ...base
  } = process.env;
  const pathDirs = (base.PATH ?? '').split(path.delimiter).filter((dir) => !dir.includes('node_modules'));
  env = {
    ...base,
    PATH: [path.dirname(process.execPath), ...pathDirs].join(path.delimiter),
    PORT: String(port),
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    POSTDECK_CONFIG_DIR: path.join(tmp, 'config'),
    npm_config_cache: path.join(tmp, 'npm-cache'),
  };
  ({ browser, page } = await openBrowser());
  await page.setViewportSize({ width: 1200, height: 900 });
  page.on('pageerror', (error) => pageProblems.push(`${page.url()}: ${error.message}`));
  page.on('response', (response) => {
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame() && response.status() >= 400) {
      pageProblems.push(`${response.url()} answered ${response.status()}`);
    }
  });
});

afterAll(async () => {
  await browser?.close();
  await shell?.close();
  // Ctrl-C in the terminal that runs `npm start` (npm, the server, FerretDB).
  if (server?.pid) await interruptGroup(server.pid);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

skipAfterFirstFailure();

const shot = (name: string, fullPage = true) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `readme-${name}.png`), fullPage });

/** Fails on any page that answered an error or threw so far. */
function expectNoPageProblems(): void {
  expect(pageProblems).toEqual([]);
}

/** Replaces the README's `<placeholder>`s with values read from earlier answers. */
function fillPlaceholders(command: string): string {
  return command.replace(/<([A-Za-z][A-Za-z0-9]*)>/g, (_all, name: string) => {
    const value = values[name];
    if (!value) throw new Error(`nothing earlier in the README gave a value for <${name}> in: ${command}`);
    return value;
  });
}

/** Runs one README command in the session; fails when it exits non-zero. */
async function runReadmeCommand(
  command: string,
  options: { onStderr?: (stderr: string) => void } = {},
): Promise<CommandResult> {
  const result = await shell.run(fillPlaceholders(command), { timeoutMs: 120_000, ...options });
  if (result.code !== 0) throw new Error(`${command}\nexited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  return result;
}

/** The JSON answer of a README curl; fails on anything else and on an error answer. */
function answerOf(command: string, result: CommandResult): Record<string, unknown> {
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`${command}\ndid not answer JSON: ${result.stdout}\n${result.stderr}`);
  }
  if ('error' in answer) throw new Error(`${command}\nanswered an error: ${result.stdout}`);
  return answer;
}

/** A 9:16 photo: a flat colour with its number written large, so the slide order shows. */
function photo(n: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="1920"><rect width="100%" height="100%" fill="${COLOURS[(n - 1) % COLOURS.length]}"/><text x="540" y="1000" font-size="360" text-anchor="middle" fill="white" font-family="sans-serif">${n}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

describe('the README from the top, in a fresh clone and a real browser', { timeout: 300_000 }, () => {
  it('Run it: `npm start` starts the server and prints its address and the next step', async () => {
    expect(blocks[0]).toEqual(['npm ci && npm start']);
    const [install, start] = blocks[0]![0]!.split(' && ');
    expect(install).toBe('npm ci');
    // `npm ci`, substituted: the same lock file is installed in this checkout.
    symlinkSync(realpathSync('node_modules'), path.join(clone, 'node_modules'));

    const log = createWriteStream(path.join(LOGS, 'readme-serve.log'), { flags: 'w' });
    // Its own process group, as a terminal's foreground job, so Ctrl-C (SIGINT) reaches npm and the server.
    server = spawn('bash', ['-c', start!], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.pipe(log);
    server.stderr!.on('data', (chunk: Buffer) => {
      serverStderr += chunk.toString();
      log.write(chunk);
    });
    const deadline = Date.now() + 240_000;
    while (!/^Next: open \S+/m.test(serverStderr)) {
      if (server.exitCode !== null) throw new Error(`npm start exited ${server.exitCode}: ${serverStderr}`);
      if (Date.now() > deadline) throw new Error(`npm start printed no next step: ${serverStderr}`);
      await sleep(250);
    }
    publicUrl = /^Postdeck is running at (\S+)/m.exec(serverStderr)![1]!;
    // The README's address, on the port chosen here.
    expect(publicUrl).toBe(`http://localhost:${port}`);
    expect(section).toContain(`Starts Postdeck on <${publicUrl}>`);
    // Every address the start message prints opens in the browser.
    const reference = /^API reference: (\S+)$/m.exec(serverStderr)![1]!;
    expect(reference).toBe(`${publicUrl}/public/v1/docs`);
    const answer = await page.goto(reference);
    expect(answer?.status()).toBe(200);
    await page.getByRole('heading', { name: /^Postdeck API/ }).waitFor();
    // The top of it: the whole reference is a very long page.
    await shot('00-api-reference', false);
    expectNoPageProblems();
  });

  it('signs up at the address the start message names: the first person owns the install', async () => {
    const next = /^Next: open (\S+) /m.exec(serverStderr)![1]!;
    expect(next).toBe(`${publicUrl}/signup`);
    expect(section).toContain(`Open <${next}>: the first person to sign up owns the install.`);
    await page.goto(next);
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await shot('01-signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${publicUrl}/keys`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`API keys of ${workspaceName}`);
    await shot('02-signed-up');
    expectNoPageProblems();
  });

  it('`node bin/postdeck.js login`: the code is approved in the browser; whoami shows the workspace and the key', async () => {
    shell = new ShellSession(clone, env, path.join(LOGS, 'readme-shell.log'));
    expect(blocks[1]).toEqual([
      'node bin/postdeck.js login',
      'node bin/postdeck.js whoami',
      'node bin/postdeck.js whoami --show-key',
    ]);
    // The start message's next step is the README's.
    expect(/^then get an API key with: +(.+)$/m.exec(serverStderr)?.[1]).toBe(blocks[1]![0]);

    let resolvePrompt: (prompt: { code: string; link: string }) => void;
    const prompt = new Promise<{ code: string; link: string }>((resolve) => (resolvePrompt = resolve));
    const login = runReadmeCommand(blocks[1]![0]!, {
      onStderr: (stderr) => {
        const code = /^Code: (\S+)$/m.exec(stderr)?.[1];
        const link = /^Open: (\S+)$/m.exec(stderr)?.[1];
        if (code && link) resolvePrompt({ code, link });
      },
    });
    const { code, link } = await Promise.race([
      prompt,
      login.then((result) => {
        throw new Error(`postdeck login ended before printing a code: ${result.stderr}`);
      }),
    ]);
    expect(link).toBe(`${publicUrl}/device?code=${code}`);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Approve device sign-in' }).waitFor();
    expect(await page.getByLabel('Device code').textContent()).toBe(code);
    await shot('03-device-approve');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device approved' }).waitFor();
    await shot('04-device-approved');
    expect((await login).stderr).toContain(`Logged in to workspace ${workspaceName} on ${publicUrl}`);

    const whoami = await runReadmeCommand(blocks[1]![1]!);
    expect(whoami.stdout).toMatch(new RegExp(`^${publicUrl}: workspace ${workspaceName} \\(\\S+\\), key service_sk_`));
    const key = await runReadmeCommand(blocks[1]![2]!);
    expect(key.stdout).toMatch(/^service_sk_\S+\n$/);
    expectNoPageProblems();
  });

  it('passes over the ways for scripts (a key minted directly, an account connected without a browser)', () => {
    // They are the alternatives to the browser steps this walkthrough takes; the README must still offer both.
    expect(blocks[2]).toEqual([`curl -H "Authorization: Bearer service_sk_..." ${publicUrl}/public/v1/platforms`]);
    expect(blocks[3]).toEqual(['node bin/postdeck.js admin connect-emulated-tiktok --json']);
  });

  it("connects the emulated TikTok account on /platforms through the emulator's consent page", async () => {
    expect(section).toContain('the web app says so on `/platforms`. Connect an emulated account there');
    await page.goto(`${publicUrl}/keys`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Social accounts' }).click();
    await page.waitForURL(`${publicUrl}/platforms`);
    expect(await page.getByText('TikTok emulator — posts go nowhere real.').isVisible()).toBe(true);
    await shot('05-platforms');

    await page.getByRole('button', { name: 'Connect TikTok', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/v2/auth/authorize/');
    await page.getByRole('heading', { name: 'Allow the app to post for you?' }).waitFor();
    // The account the built-in emulator starts with is offered, and chosen.
    const account = page.getByRole('radio');
    expect(await account.count()).toBe(1);
    expect(await account.isChecked()).toBe(true);
    connectedAccount = (await account.getAttribute('aria-label'))!;
    expect(connectedAccount).toBe('Emulated Creator (@emulated.creator)');
    await shot('06-tiktok-consent');
    await page.getByRole('button', { name: 'Authorize' }).click();

    await page.waitForURL((url) => url.toString().startsWith(`${publicUrl}/platforms?`));
    await page.getByText('The TikTok account is connected.').waitFor();
    const row = page.getByRole('row', { name: /Emulated Creator/ });
    expect(await row.getByText('Ready').isVisible()).toBe(true);
    await shot('07-platforms-connected');
    expectNoPageProblems();
  });

  it('Post something: the schema, three photos and a carousel posted now, read until it is PUBLISHED', async () => {
    const commands = blocks[4]!;
    expect(blocks).toHaveLength(5);
    for (const command of commands) {
      if (command.startsWith('for ')) {
        // The reader's own photos, named as the README names them.
        const files = /^for \w+ in ([^;]+);/.exec(command)![1]!.trim().split(/\s+/);
        expect(files.length).toBeGreaterThanOrEqual(2);
        for (const [i, file] of files.entries()) {
          writeFileSync(path.join(clone, file), await photo(i + 1));
        }
        const result = await runReadmeCommand(command);
        const answers = result.stdout.split('\n').filter((line) => line.trim());
        expect(answers).toHaveLength(files.length);
        uploaded = answers.map((line) => answerOf(command, { ...result, stdout: line }).id as string);
        for (const [i, id] of uploaded.entries()) values[`mediaId${i + 1}`] = id;
        continue;
      }
      if (/\/posts\/<postId>$/.test(command)) {
        // Read again until the worker has published it, as the paragraph after the block says.
        const deadline = Date.now() + 120_000;
        for (;;) {
          const group = answerOf(command, await runReadmeCommand(command)) as {
            root: { state: string; errorText: string | null; releaseUrl: string | null; mediaIds: string[] };
          };
          if (group.root.state === 'ERROR') throw new Error(`the post failed: ${group.root.errorText}`);
          if (group.root.state === 'PUBLISHED') {
            // A SELF_ONLY post gets no id from TikTok; its releaseUrl is the creator's profile, on the
            // emulator's own pages (the account exists nowhere else).
            expect(group.root.releaseUrl).toMatch(/^http:\/\/[^/]+:\d+\/@emulated\.creator$/);
            const profile = await fetch(group.root.releaseUrl!);
            expect(profile.status).toBe(200);
            expect(await profile.text()).toContain('@emulated.creator');
            expect(group.root.mediaIds).toEqual(uploaded);
            break;
          }
          if (Date.now() > deadline) throw new Error(`the post is still ${group.root.state} after two minutes`);
          await sleep(1_000);
        }
        continue;
      }
      const result = await runReadmeCommand(command);
      if (command.startsWith('KEY=')) {
        // The line only sets variables; check it set them.
        const set = await shell.run('printf "%s %s" "$KEY" "$API"');
        expect(set.stdout).toMatch(new RegExp(`^service_sk_\\S+ ${publicUrl}/public/v1$`));
        continue;
      }
      const answer = answerOf(command, result);
      if (/\$API\/platforms$/.test(command)) {
        const platforms = answer.platforms as { id: string; displayName: string; displayHandle: string }[];
        const mine = platforms.find((p) => `${p.displayName} (@${p.displayHandle})` === connectedAccount);
        expect(mine).toBeDefined();
        values.platformId = mine!.id;
      } else if (/\/schema$/.test(command)) {
        expect(answer.privacyLevelOptions).toContain('SELF_ONLY');
      } else if (/\$API\/posts$/.test(command)) {
        const [entry] = answer.results as { status: string; post: { root: { id: string; mediaIds: string[] } } }[];
        expect(entry!.status).toBe('created');
        expect(entry!.post.root.mediaIds).toEqual(uploaded);
        values.postId = entry!.post.root.id;
      }
    }
    expect(values.postId).toBeDefined();
  });

  it('shows the published carousel in the calendar on /posts', async () => {
    await page.goto(`${publicUrl}/keys`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Posts' }).click();
    await page.waitForURL((url) => url.pathname === '/posts');
    const card = page.locator(`#post-${values.postId}`);
    await card.waitFor();
    expect(await card.getByText('PUBLISHED', { exact: true }).isVisible()).toBe(true);
    expect(await card.getByText(`${uploaded.length} images`).isVisible()).toBe(true);
    expect(await card.getByText('@emulated.creator').isVisible()).toBe(true);
    // The card stays inside its day's column (a long handle is cut short with an ellipsis, not the card).
    const column = (await page.locator('li.day', { has: card }).boundingBox())!;
    const box = (await card.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(column.x + column.width);
    // The first slide's preview (and every other picture on the page) has loaded.
    expect(await card.locator('img').count()).toBe(1);
    await expect.poll(() => imagesLoaded(page), { timeout: 60_000 }).toBeGreaterThan(0);
    await shot('08-posts-published');
    expectNoPageProblems();
  });
});
