import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { imagesLoaded, openBrowser, SCREENSHOTS } from '../support/chat-cards.js';
import { ShellSession, shellBlocks, skipAfterFirstFailure } from '../support/readme.js';
import { ENTRY, freePort, interruptGroup, runPostdeck } from '../support/spawn.js';

// The README's bots trial followed as written, in Chromium: `node bin/postdeck.js try-bots` in place of
// `npm start`, `/postdeck` typed in each emulator's channel page, the login approved on Postdeck's
// device page, the README's draft created with curl, and the card's buttons clicked until the post
// is published to the TikTok emulator. What differs from a person's machine, and only that:
// - `node bin/postdeck.js` runs as the checkout's own entry (ENTRY), the same file;
// - PORT, DATA_DIR (with the embedded database) and the key's config directory are temporary, and
//   FERRETDB_CACHE_DIR points at the FerretDB binary the test run already built;
// - the README's earlier steps the trial builds on (the owner's sign-up, a connected emulated TikTok
//   account, a key, two uploaded photos) are done here the short way: the README walkthrough test
//   follows them literally.
const README_TRIAL = '### Try the bots without Slack or Discord';
const LOGS = path.resolve('test-artifacts');
const owner = { name: 'Tess Trial', email: 'tess@example.test', password: 'bots trial password 123' };

let tmp: string;
let publicUrl: string;
let serverUrl: string;
let section: string;
let blocks: string[][];
let env: Record<string, string>;
let trial: ChildProcess | undefined;
let trialStderr = '';
let shell: ShellSession;
let browser: Browser;
let page: Page;
let apiKey: string;
const channels: { slack?: string; discord?: string } = {};
/** Values for the README's placeholders, read from earlier answers. */
const values: Record<string, string> = {};
const postIds: string[] = [];
const pageProblems: string[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'postdeck-bots-trial-'));
  const port = await freePort();
  publicUrl = `http://localhost:${port}`;
  serverUrl = `http://127.0.0.1:${port}`;
  ({ section, blocks } = shellBlocks(readFileSync('README.md', 'utf8'), README_TRIAL));
  // A person's shell: none of Postdeck's settings from the environment the tests run in.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        !/^(SLACK_|DISCORD_|TIKTOK_|OPENAI_|MONGODB_|PUBLIC_|POSTDECK_|DATA_DIR$|HOST$|PORT$)/.test(entry[0]),
    ),
  );
  env = {
    ...base,
    PORT: String(port),
    DATA_DIR: path.join(tmp, 'data'),
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    POSTDECK_CONFIG_DIR: path.join(tmp, 'config'),
  };
  ({ browser, page } = await openBrowser());
  await page.setViewportSize({ width: 900, height: 1000 });
  page.on('pageerror', (error) => pageProblems.push(`${page.url()}: ${error.message}`));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await shell?.close();
  // Ctrl-C in the terminal that runs it: SIGINT to its process group.
  if (trial?.pid) await interruptGroup(trial.pid);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

skipAfterFirstFailure();

const shot = (name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `bots-trial-${name}.png`), fullPage: true });

/** Types into the channel page's message box and sends it. */
async function type(text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** `/postdeck login` in the open channel page, approved on the device page it links to. */
async function login(): Promise<void> {
  await type('/postdeck login');
  const answer = page.locator('article.private', { hasText: 'Your code is' });
  await answer.waitFor({ timeout: 60_000 });
  expect(await answer.textContent()).toContain('You used /postdeck login');
  const code = /\b([A-Z]{2,8}-[A-Z]{4}-[A-Z]{4})\b/.exec((await answer.textContent()) ?? '')?.[1];
  expect(code).toBeDefined();
  const [device] = await Promise.all([
    page.context().waitForEvent('page'),
    answer.getByRole('link', { name: 'Open Postdeck' }).click(),
  ]);
  // The device page names where the login came from ("Link Slack to Postdeck").
  await device.getByRole('heading', { name: /^Link (Slack|Discord) to Postdeck$/ }).waitFor();
  expect(await device.getByLabel('Device code').textContent()).toBe(code);
  await device.getByRole('button', { name: 'Approve' }).click();
  await device.getByRole('button', { name: 'Approve' }).waitFor({ state: 'detached' });
  await device.close();
  // The worker polls the login and rewrites the answer.
  await page.getByText('Linked to the Postdeck workspace').waitFor({ timeout: 90_000 });
}

/** Runs the README's draft command; answers the new post's id. */
async function createDraft(): Promise<string> {
  expect(blocks[1]).toHaveLength(1);
  const command = blocks[1]![0]!.replace(/<([A-Za-z][A-Za-z0-9]*)>/g, (_all, name: string) => {
    if (!values[name]) throw new Error(`no value for <${name}>`);
    return values[name];
  });
  const result = await shell.run(command, { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  const answer = JSON.parse(result.stdout) as { results: { status: string; post: { root: { id: string } } }[] };
  expect(answer.results[0]!.status).toBe('created');
  const id = answer.results[0]!.post.root.id;
  postIds.push(id);
  return id;
}

/** The card of a draft whose caption is `caption`, once the channel page shows it with its slides loaded. */
async function cardWith(caption: string): Promise<Locator> {
  const card = page.locator('article', { hasText: caption });
  await card.waitFor({ timeout: 90_000 });
  await expect.poll(() => imagesLoaded(page), { timeout: 60_000 }).toBeGreaterThan(0);
  return card;
}

async function postState(id: string): Promise<{ state: string; content: string }> {
  const response = await fetch(`${serverUrl}/public/v1/posts/${id}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return ((await response.json()) as { root: { state: string; content: string } }).root;
}

describe('the README bots trial, in a real browser', { timeout: 300_000 }, () => {
  it('`node bin/postdeck.js try-bots` starts Postdeck with both emulators and prints a channel page of each', async () => {
    expect(blocks[0]).toEqual(['node bin/postdeck.js try-bots']);
    const command = blocks[0]![0]!.replace(/^node bin\/postdeck\.js /, `node ${ENTRY} `);
    const log = createWriteStream(path.join(LOGS, 'bots-trial-serve.log'), { flags: 'w' });
    trial = spawn('bash', ['-c', command], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    trial.stdout!.pipe(log);
    trial.stderr!.on('data', (chunk: Buffer) => {
      trialStderr += chunk.toString();
      log.write(chunk);
    });
    const deadline = Date.now() + 240_000;
    while (!/^ {2}Discord #approvals: +\S+$/m.test(trialStderr)) {
      if (trial.exitCode !== null) throw new Error(`try-bots exited ${trial.exitCode}: ${trialStderr}`);
      if (Date.now() > deadline) throw new Error(`try-bots printed no channel pages: ${trialStderr}`);
      await sleep(250);
    }
    expect(trialStderr).toContain(`Postdeck is running at ${publicUrl}`);
    channels.slack = /^ {2}Slack #approvals: +(\S+)$/m.exec(trialStderr)![1]!;
    channels.discord = /^ {2}Discord #approvals: +(\S+)$/m.exec(trialStderr)![1]!;
    expect(channels.slack).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__control\/channels\/C0APPROVALS$/);
    expect(channels.discord).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__control\/channels\/\d+$/);
    // The README shows the same two lines (its ports are examples).
    expect(section).toMatch(/^ {2}Slack #approvals: +http:\/\/127\.0\.0\.1:\d+\/__control\/channels\/C0APPROVALS$/m);
  });

  it('checks signatures: a request not signed as Slack or Discord sign theirs is refused', async () => {
    const slack = await fetch(`${serverUrl}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'command=%2Fpostdeck&text=login&team_id=T0TRYBOTS&user_id=U0TRIALYOU',
    });
    expect(slack.status).toBe(401);
    const discord = await fetch(`${serverUrl}/discord/interactions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature-ed25519': '00'.repeat(64),
        'x-signature-timestamp': '1',
      },
      body: JSON.stringify({ type: 1 }),
    });
    expect(discord.status).toBe(401);
  });

  it('the steps before it, the short way: an owner, an emulated TikTok account, a key and two photos', async () => {
    await page.goto(`${publicUrl}/signup`);
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${publicUrl}/keys`);
    const platform = JSON.parse(await runPostdeck(['admin', 'connect-emulated-tiktok', '--json'], env)) as {
      id: string;
    };
    values.platformId = platform.id;
    apiKey = (JSON.parse(await runPostdeck(['admin', 'bootstrap', '--json'], env)) as { apiKey: string }).apiKey;
    for (const [i, colour] of ['#d6336c', '#1c7ed6'].entries()) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="1920"><rect width="100%" height="100%" fill="${colour}"/><text x="540" y="1000" font-size="360" text-anchor="middle" fill="white" font-family="sans-serif">${i + 1}</text></svg>`;
      const form = new FormData();
      form.append('file', new Blob([await sharp(Buffer.from(svg)).jpeg().toBuffer()]), `slide${i + 1}.jpg`);
      const uploaded = await fetch(`${serverUrl}/public/v1/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: form,
      });
      expect(uploaded.status).toBe(201);
      values[`mediaId${i + 1}`] = ((await uploaded.json()) as { id: string }).id;
    }
    shell = new ShellSession(process.cwd(), env, path.join(LOGS, 'bots-trial-shell.log'));
    expect((await shell.run(`KEY=${apiKey}; API=${publicUrl}/public/v1`)).code).toBe(0);
  });

  it('Slack: /postdeck login in the channel page, the code approved on the device page it opens', async () => {
    await page.goto(channels.slack!);
    await page.getByRole('heading', { name: '# approvals Slack emulator' }).waitFor();
    await login();
    await shot('slack-linked');
    await type('/postdeck approvals here');
    await page.getByText('Draft approvals now go to').waitFor({ timeout: 60_000 });
    expect(pageProblems).toEqual([]);
  });

  it("Slack: the README's draft arrives as a card; Edit caption opens a form whose edit shows on the card", async () => {
    await createDraft();
    const card = await cardWith('Hello from a draft');
    expect(await card.textContent()).toContain('Draft waiting for approval');
    expect(await card.getByRole('button').allTextContents()).toEqual(['Approve', 'Schedule', 'Edit caption', 'Reject']);
    await shot('slack-card');

    await card.getByRole('button', { name: 'Edit caption' }).click();
    const form = page.getByRole('dialog', { name: 'Edit the caption' });
    await form.waitFor({ timeout: 60_000 });
    const caption = form.getByLabel('Caption');
    expect(await caption.inputValue()).toBe('Hello from a draft');
    await caption.fill('Hello from the Slack trial');
    await shot('slack-edit-form');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.locator('article', { hasText: '@you edited the caption' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('article', { hasText: 'Hello from the Slack trial' }).count()).toBe(1);
  });

  it('Slack: Approve publishes it to the TikTok emulator; the card says so and links the post', async () => {
    const card = page.locator('article', { hasText: 'Hello from the Slack trial' });
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.getByText('Published on TikTok').first().waitFor({ timeout: 120_000 });
    // The link opens the emulator's own post page, and says so.
    const link = card.getByRole('link', { name: 'View in the TikTok emulator' }).first();
    await link.waitFor({ timeout: 60_000 });
    const href = (await link.getAttribute('href')) ?? '';
    // The post's page, or the profile while TikTok withholds the post's id.
    expect(href).toMatch(/^https?:\/\/[^/]+\/@[^/]+(\/photo\/\d+)?$/);
    expect(new URL(href).hostname).not.toContain('tiktok.com');
    expect(await card.textContent()).toContain('@you approved: publishing now');
    expect(await card.getByRole('button').count()).toBe(0);
    await expect.poll(() => imagesLoaded(page), { timeout: 60_000 }).toBeGreaterThan(0);
    await shot('slack-published');
    expect(await postState(postIds[0]!)).toMatchObject({ state: 'PUBLISHED', content: 'Hello from the Slack trial' });
    expect(pageProblems).toEqual([]);
  });

  it('Discord: login and approvals here, then Schedule on a second draft takes a typed time', async () => {
    await page.goto(channels.discord!);
    await page.getByRole('heading', { name: '# approvals Discord emulator' }).waitFor();
    await login();
    await type('/postdeck approvals here');
    await page.getByText('Draft approvals now go to').waitFor({ timeout: 60_000 });

    const id = await createDraft();
    const card = await cardWith('Hello from a draft');
    expect(await card.getByRole('button').allTextContents()).toEqual(['Approve', 'Schedule', 'Edit caption', 'Reject']);
    await shot('discord-card');
    await card.getByRole('button', { name: 'Schedule' }).click();
    const form = page.getByRole('dialog', { name: 'Schedule the post' });
    await form.waitFor({ timeout: 60_000 });
    // Prefilled with the next quarter hour an hour from now, in the server's zone (UTC until set).
    const when = form.getByRole('textbox');
    expect(await when.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    await shot('discord-schedule-form');
    await form.getByRole('button', { name: 'Submit' }).click();
    await card.getByText('Scheduled').first().waitFor({ timeout: 60_000 });
    expect(await card.getByRole('button').count()).toBe(0);
    await shot('discord-scheduled');
    expect((await postState(id)).state).toBe('QUEUE');
    expect(pageProblems).toEqual([]);
  });

  it('Slack: Reject asks first, as Slack does, then deletes the draft and says so on the card', async () => {
    await page.goto(channels.slack!);
    // The cards in channel order (what only you see is left out): the new one comes last.
    const cards = page.locator('#messages > article:not(.private)');
    await cards.first().waitFor();
    const before = await cards.count();
    const id = await createDraft();
    await expect.poll(() => cards.count(), { timeout: 90_000 }).toBe(before + 1);
    const card = cards.nth(before);
    expect(await card.textContent()).toContain('Draft waiting for approval');
    await card.getByRole('button', { name: 'Reject' }).click();
    const confirm = page.getByRole('dialog', { name: 'Reject this draft?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('The draft is deleted from Postdeck.');
    await shot('slack-reject-confirm');
    await confirm.getByRole('button', { name: 'Reject' }).click();
    await card.getByText('Rejected').first().waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain('@you rejected');
    const gone = await fetch(`${serverUrl}/public/v1/posts/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(gone.status).toBe(404);
    await shot('slack-rejected');
    expect(pageProblems).toEqual([]);
  });
});
