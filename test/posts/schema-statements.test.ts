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
