import { beforeAll, describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { buildMedia, makeJpeg, makeMp4, upload } from '../support/media.js';

const { t, server } = await useTestServer();

type Tenant = Awaited<ReturnType<typeof buildTenant>>;

async function createFolder(tenant: Tenant, name: string): Promise<Response> {
  return server.request('/public/v1/media/folders', {
    method: 'POST',
    apiKey: tenant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
}

async function listIds(tenant: Tenant, query = ''): Promise<string[]> {
  const response = await server.request(`/public/v1/media${query}`, { apiKey: tenant.apiKey });
  expect(response.status).toBe(200);
  return ((await response.json()) as { media: { id: string }[] }).media.map((m) => m.id);
}

describe('GET /public/v1/media', () => {
  let tenant: Tenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    tenant = await buildTenant(t.deps);
    const folder = (await (await createFolder(tenant, 'Campaign')).json()) as { id: string };
    ids.folder = folder.id;
    const post = async (bytes: Buffer, fields: Record<string, string> = {}): Promise<string> =>
      ((await (await upload(server, tenant.apiKey, { bytes }, fields)).json()) as { id: string }).id;
    ids.rootImage = await post(await makeJpeg(40, 40));
    ids.rootVideo = await post(makeMp4(1000));
    ids.folderImage = await post(await makeJpeg(50, 50), { folderId: folder.id });
    ids.folderVideo = await post(makeMp4(1000), { folderId: folder.id });
    ids.composite = (await buildMedia(t.deps, tenant.workspaceId, { source: 'composite' }))._id;
    ids.generated = (await buildMedia(t.deps, tenant.workspaceId, { source: 'generated', folderId: folder.id }))._id;
    await buildMedia(t.deps, (await buildTenant(t.deps)).workspaceId);
  });

  it('lists every upload, newest first, by default', async () => {
    expect(await listIds(tenant)).toEqual([ids.folderVideo, ids.folderImage, ids.rootVideo, ids.rootImage]);
  });

  it('lists the root with folderId=null and one folder by its id', async () => {
    expect(await listIds(tenant, '?folderId=null')).toEqual([ids.rootVideo, ids.rootImage]);
    expect(await listIds(tenant, `?folderId=${ids.folder}`)).toEqual([ids.folderVideo, ids.folderImage]);
  });

  it('filters by media type', async () => {
    expect(await listIds(tenant, '?mediaType=image')).toEqual([ids.folderImage, ids.rootImage]);
    expect(await listIds(tenant, '?mediaType=video&folderId=null')).toEqual([ids.rootVideo]);
  });

  it('filters by each source, and all includes every source', async () => {
    expect(await listIds(tenant, '?source=upload')).toHaveLength(4);
    expect(await listIds(tenant, '?source=composite')).toEqual([ids.composite]);
    expect(await listIds(tenant, '?source=generated')).toEqual([ids.generated]);
    expect(await listIds(tenant, `?source=generated&folderId=${ids.folder}`)).toEqual([ids.generated]);
    expect((await listIds(tenant, '?source=all')).sort()).toEqual(
      Object.values(ids)
        .filter((id) => id !== ids.folder)
        .sort(),
    );
  });

  it('pages with limit and nextCursor without overlaps or gaps', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const response = await server.request(`/public/v1/media?source=all&limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        apiKey: tenant.apiKey,
      });
      const page = (await response.json()) as { media: { id: string }[]; nextCursor?: string };
      expect(page.media.length).toBeLessThanOrEqual(2);
      seen.push(...page.media.map((m) => m.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(await listIds(tenant, '?source=all'));
    expect(seen).toHaveLength(6);
  });

  it.each([
    ['?folderId=root', 'folderId'],
    ['?mediaType=audio', 'mediaType'],
    ['?source=everything', 'source'],
    ['?limit=0', 'limit'],
    ['?limit=501', 'limit'],
    ['?cursor=bm9wZQ', 'cursor'],
  ])('rejects %s with invalid_request', async (query, field) => {
    const response = await server.request(`/public/v1/media${query}`, { apiKey: tenant.apiKey });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; details: { path: string[] }[] };
    expect(body.code).toBe('invalid_request');
    expect(body.details[0]?.path).toEqual(['query', field]);
  });

  it("answers not_found for another workspace's folder", async () => {
    const other = await buildTenant(t.deps);
    const response = await server.request(`/public/v1/media?folderId=${ids.folder}`, { apiKey: other.apiKey });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found' });
    expect(await listIds(other, '?source=all')).toEqual([]);
  });

  it('answers missing_api_key and invalid_api_key', async () => {
    expect(await (await server.request('/public/v1/media')).json()).toMatchObject({ code: 'missing_api_key' });
    const invalid = await server.request('/public/v1/media', { apiKey: 'service_sk_nope' });
    expect(invalid.status).toBe(401);
    expect(await invalid.json()).toMatchObject({ code: 'invalid_api_key' });
  });
});

describe('media folders', () => {
  it('creates folders and lists them in the spec shape', async () => {
    const tenant = await buildTenant(t.deps);
    const created = await createFolder(tenant, '  Summer drop  ');
    expect(created.status).toBe(201);
    const folder = (await created.json()) as Record<string, unknown>;
    expect(folder).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId: tenant.workspaceId,
      name: 'Summer drop',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = await server.request('/public/v1/media/folders', { apiKey: tenant.apiKey });
    expect(await list.json()).toEqual({ folders: [folder] });
  });

  it('refuses a duplicate name, ignoring case, with 409 conflict, even when racing', async () => {
    const tenant = await buildTenant(t.deps);
    const statuses = await Promise.all(
      ['Reels', 'reels', 'REELS', 'Reels'].map(async (name) => (await createFolder(tenant, name)).status),
    );
    expect(statuses.sort()).toEqual([201, 409, 409, 409]);
    const again = await createFolder(tenant, 'rEELs');
    expect(await again.json()).toMatchObject({ code: 'conflict', message: expect.stringContaining('already exists') });
    expect((await createFolder(await buildTenant(t.deps), 'Reels')).status).toBe(201);
  });

  it.each([[''], ['   '], ['x'.repeat(256)]])('rejects the name %j with invalid_request', async (name) => {
    const response = await createFolder(await buildTenant(t.deps), name);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_request', details: [{ path: ['body', 'name'] }] });
  });

  it('accepts a 255-character name and shows only the workspace its own folders', async () => {
    const a = await buildTenant(t.deps);
    expect((await createFolder(a, 'y'.repeat(255))).status).toBe(201);
    const b = await buildTenant(t.deps);
    expect(await (await server.request('/public/v1/media/folders', { apiKey: b.apiKey })).json()).toEqual({
      folders: [],
    });
  });

  it('answers missing_api_key and invalid_api_key', async () => {
    expect((await server.request('/public/v1/media/folders')).status).toBe(401);
    const invalid = await server.request('/public/v1/media/folders', { method: 'POST', apiKey: 'service_sk_x' });
    expect(await invalid.json()).toMatchObject({ code: 'invalid_api_key' });
  });
});
