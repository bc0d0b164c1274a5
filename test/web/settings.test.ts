import { beforeAll, describe, expect, it } from 'vitest';
import { acceptInvitation, createInvitation } from '../../src/core/identity/invitations.js';
import { getAiSettings } from '../../src/core/tenancy/ai-settings-update.js';
import { DEFAULT_AI_SETTINGS } from '../../src/core/tenancy/ai-settings.js';
import { useTestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { WebClient, decodeEntities } from '../support/web.js';

const { t, server } = await useTestServer();
let owner: TestUser;
let member: TestUser;

const valid = {
  systemPrompt: 'Write like a friendly barista.\r\nNever use hashtags.',
  knowledgeBase: 'We roast beans in Hanoi. "Đà Lạt" blend <b>.',
  defaultLanguage: 'pt-BR',
  defaultSlideLength: 'long',
  defaultTextStyle: 'league-spartan',
  defaultCaptionSize: 'large',
  defaultUseTopHooks: 'on',
};

beforeAll(async () => {
  owner = await buildUser(t.deps, { name: 'Owner' });
  member = await buildUser(t.deps, { name: 'Member' });
  const { token } = await createInvitation(t.deps, owner.scope, { role: 'member' });
  await acceptInvitation(t.deps, { token, userId: member.user.id });
});

describe('the AI settings page', () => {
  it('shows the defaults with a label for every setting', async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    const page = await browser.get('/settings');
    expect(page.status).toBe(200);
    for (const [name, label] of [
      ['systemPrompt', 'System prompt'],
      ['knowledgeBase', 'Knowledge base'],
      ['defaultLanguage', 'Default language'],
      ['defaultSlideLength', 'Default slide length'],
      ['defaultTextStyle', 'Default text style'],
      ['defaultCaptionSize', 'Default caption size'],
      ['defaultUseTopHooks', 'Learn from top hooks'],
    ]) {
      expect(page.text).toContain(`<label for="f-${name}">${label}</label>`);
      expect(page.text).toContain(`id="f-${name}" name="${name}"`);
    }
    expect(page.text).toContain('<option value="medium" selected>Medium</option>');
    expect(page.text).toContain('<option value="primary-sans" selected>Primary sans</option>');
    expect(page.text).toContain('<option value="off" selected>Off</option>');
    expect(page.text).toContain('Save settings');
  });

  it('says plainly when captions and images come from the AI emulator', async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    const page = await browser.get('/settings');
    expect(decodeEntities(page.text)).toContain('AI emulator — captions and images are not from a model.');
  });

  it('saves an owner’s settings and shows them again', async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    await browser.get('/settings');
    const saved = await browser.post('/settings', { workspaceId: owner.workspaceId, ...valid });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`/settings?ws=${owner.workspaceId}&notice=saved`);

    expect(await getAiSettings(t.deps, owner.scope)).toEqual({
      ...valid,
      systemPrompt: 'Write like a friendly barista.\nNever use hashtags.',
      defaultLanguage: 'pt-BR',
      defaultUseTopHooks: true,
    });
    const page = await browser.get(saved.location!);
    expect(page.text).toContain('The AI settings were saved.');
    expect(decodeEntities(page.text)).toContain('We roast beans in Hanoi. "Đà Lạt" blend <b>.');
    expect(page.text).not.toContain('<b>.');
    expect(page.text).toContain('<option value="league-spartan" selected>League Spartan</option>');
    expect(page.text).toContain('<option value="on" selected>On</option>');
  });

  it('re-renders the form with each problem beside its field and keeps what was typed', async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    await browser.get('/settings');
    const before = await getAiSettings(t.deps, owner.scope);
    const page = await browser.post('/settings', {
      workspaceId: owner.workspaceId,
      ...valid,
      systemPrompt: 'x'.repeat(8_001),
      defaultLanguage: 'english please',
      defaultSlideLength: 'huge',
      defaultTextStyle: 'comic-sans',
      defaultUseTopHooks: 'always',
    });
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/role="alert" aria-live="assertive">5 settings need attention/);
    expect(page.text).toMatch(/id="f-systemPrompt-error">Must be at most 8000 characters/);
    expect(page.text).toMatch(/id="f-defaultLanguage-error">Must be a language code/);
    expect(page.text).toMatch(/id="f-defaultSlideLength-error">Must be short, medium or long/);
    expect(page.text).toContain('id="f-defaultTextStyle-error"');
    expect(page.text).toMatch(/id="f-defaultUseTopHooks-error">Must be on or off/);
    expect(page.text).not.toContain('id="f-defaultCaptionSize-error"');
    expect(page.text).toContain('value="english please"');
    expect(await getAiSettings(t.deps, owner.scope)).toEqual(before);
  });

  it('shows a member the settings read-only and refuses their post', async () => {
    const browser = new WebClient(server);
    await browser.signIn(member.email, member.password);
    const page = await browser.get(`/settings?ws=${owner.workspaceId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Only owners of this workspace can change these settings.');
    expect(page.text).not.toContain('Save settings');
    expect(page.text).toMatch(/id="f-systemPrompt" name="systemPrompt" rows="6"[^>]* disabled/);

    const refused = await browser.post('/settings', {
      workspaceId: owner.workspaceId,
      ...valid,
      systemPrompt: 'hijack',
    });
    expect(refused.status).toBe(403);
    expect((await getAiSettings(t.deps, owner.scope)).systemPrompt).not.toBe('hijack');
  });

  it('answers 404 when the form names a workspace the user is not in', async () => {
    const browser = new WebClient(server);
    await browser.signIn(member.email, member.password);
    await browser.get('/settings');
    const stranger = await buildUser(t.deps);
    const page = await browser.post('/settings', { workspaceId: stranger.workspaceId, ...valid });
    expect(page.status).toBe(404);
    expect(await getAiSettings(t.deps, stranger.scope)).toEqual(DEFAULT_AI_SETTINGS);
  });
});
