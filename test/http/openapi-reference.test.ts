import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { tiktokSettingsJsonSchema } from '../../src/core/providers/tiktok/rules/settings-schema.js';
import type { TikTokPostingRules } from '../../src/core/providers/tiktok/rules/post-limits.js';
import { buildOpenApiDocument } from '../../src/http/api/openapi.js';
import { REST_ROUTES } from '../../src/http/api/routes.js';

// What the API reference is drawn from: short headings, the summaries as text, and example
// requests whose TikTok settings are valid against the posting schema a client reads.
type Operation = {
  summary?: string;
  description?: string;
  requestBody?: { content: Record<string, { examples?: Record<string, { summary: string; value: unknown }> }> };
};
const document = buildOpenApiDocument(REST_ROUTES, 'http://127.0.0.1') as {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ at: `${method.toUpperCase()} ${path}`, ...operation })),
);

/** A creator who allows everything and offers every privacy level. */
const OPEN_CREATOR: TikTokPostingRules = {
  creator: { nickname: 'Example Creator', username: 'example.creator' },
  cannotPost: null,
  privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
  maxVideoDurationSec: 600,
};
const ajv = new AjvJsonSchemaValidator();
// The MCP SDK's Ajv reads draft-07, which has every keyword the settings schema uses; its
// draft 2020-12 `$schema` line is all it would refuse.
const validatorFor = (kind: 'photo' | 'video') => {
  const { $schema: _draft, ...schema } = tiktokSettingsJsonSchema(OPEN_CREATOR, kind);
  return ajv.getValidator(schema);
};
const settingsValidators = { photo: validatorFor('photo'), video: validatorFor('video') };

describe('the OpenAPI document behind the API reference', () => {
  it('is titled with the API version the paths carry, not a bare number', () => {
    expect(document.info).toMatchObject({ title: 'Postdeck API', version: 'v1' });
  });

  it('heads each operation with a short title and keeps the whole summary as its text', () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const operation of operations) {
      expect(operation.summary, operation.at).toMatch(/^[A-Z][^:;]{2,40}$/);
      expect(operation.description, operation.at).toBeTruthy();
      expect(operation.description, operation.at).not.toBe(operation.summary);
    }
    const create = document.paths['/public/v1/posts']!.post!;
    expect(create.summary).toBe('Create posts');
    expect(create.description).toMatch(/settings/);
  });

  it('shows example requests for creating, generating and publishing posts, each a valid body', () => {
    const withExamples = REST_ROUTES.filter((route) => route.examples);
    expect(withExamples.map((route) => route.operation.name).sort()).toEqual([
      'create_post',
      'generate_slideshow',
      'publish_post',
    ]);
    for (const route of withExamples) {
      const path = `/public/v1${route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
      const listed = document.paths[path]![route.method]!.requestBody!.content['application/json']!.examples!;
      expect(Object.keys(listed)).toEqual(Object.keys(route.examples!));
      for (const [name, example] of Object.entries(listed)) {
        expect(example.summary, name).not.toBe('');
        const parsed = route.body!.safeParse(example.value);
        expect(parsed.error?.issues, `${route.operation.name} ${name}`).toBeUndefined();
      }
    }
  });

  it('gives settings in every example that the posting schema accepts, for photos and for videos', () => {
    const kinds = new Set<string>();
    const examples = REST_ROUTES.flatMap((route) => Object.entries(route.examples ?? {}));
    for (const [name, example] of examples) {
      const settings = example.value.settings;
      expect(settings, name).toBeDefined();
      const fits = Object.entries(settingsValidators)
        .filter(([, validate]) => validate(settings).valid)
        .map(([kind]) => kind);
      expect(fits, `${name}: ${JSON.stringify(settings)}`).not.toEqual([]);
      for (const kind of fits) kinds.add(kind);
      expect(settings).toMatchObject({ content_posting_method: 'DIRECT_POST' });
    }
    expect([...kinds].sort()).toEqual(['photo', 'video']);
    // A photo-only key never passes as a video's, so the examples really show both kinds.
    expect(
      settingsValidators.video({ content_posting_method: 'DIRECT_POST', privacy_level: 'SELF_ONLY', title: 'x' }).valid,
    ).toBe(false);
  });
});
