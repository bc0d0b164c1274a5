import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/api/openapi.js';
import { REST_ROUTES } from '../../src/http/api/routes.js';
import { TOOL_BINDINGS } from '../../src/mcp/tools.js';

type Schemas = Record<string, { properties: Record<string, Record<string, unknown>> }>;

const schemas = (buildOpenApiDocument(REST_ROUTES, 'http://localhost') as { components: { schemas: Schemas } })
  .components.schemas;

function toolProperties(name: string): Record<string, Record<string, unknown>> {
  return TOOL_BINDINGS.get(name)!.tool.inputSchema.properties as Record<string, Record<string, unknown>>;
}

// Rules the posts schemas must state, or a schema-driven client sends what is refused for a rule it
// could not see (each found by the fuzz, test/fuzz).
describe('the posts schemas state their rules', () => {
  it('platformIds is uniqueItems in create posts and generate, over REST and MCP', () => {
    for (const name of ['PostCreate', 'SlideshowGenerateRequest']) {
      expect(schemas[name]!.properties.platformIds, name).toMatchObject({ uniqueItems: true });
    }
    for (const name of ['create_post', 'generate_slideshow']) {
      expect(toolProperties(name).platformIds, name).toMatchObject({ uniqueItems: true });
    }
  });

  it("content says its length limit is in the platform's posting schema, over REST and MCP", () => {
    for (const name of ['PostCreate', 'PostPublish']) {
      expect(schemas[name]!.properties.content!.description, name).toContain("the platform's posting schema");
    }
    for (const name of ['create_post', 'publish_post']) {
      expect(toolProperties(name).content!.description, name).toContain("the platform's posting schema");
    }
  });
});

describe('uuids in openapi.json', () => {
  it('carry the pattern the server checks, so a version-0 uuid is not schema-valid', () => {
    const formats: Record<string, unknown>[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        const record = node as Record<string, unknown>;
        if (record.format === 'uuid') formats.push(record);
        Object.values(record).forEach(walk);
      }
    };
    walk(buildOpenApiDocument(REST_ROUTES, 'http://localhost'));
    expect(formats.length).toBeGreaterThan(10);
    for (const schema of formats) {
      expect(typeof schema.pattern).toBe('string');
      const pattern = new RegExp(schema.pattern as string);
      expect(pattern.test('00000000-0000-0000-0000-000000000001')).toBe(false);
      expect(pattern.test('3f0c2a47-9a51-4c1e-8f6e-2b7d9c0e4a11')).toBe(true);
    }
  });
});
