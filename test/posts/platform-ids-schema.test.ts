import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/api/openapi.js';
import { REST_ROUTES } from '../../src/http/api/routes.js';
import { TOOL_BINDINGS } from '../../src/mcp/tools.js';

type Schemas = Record<string, { properties: Record<string, Record<string, unknown>> }>;

// A platform listed twice is refused; the schemas say so, or a schema-driven client sends it and is
// refused for a rule it could not see (found by the fuzz, test/fuzz).
describe('platformIds in the published schemas', () => {
  it('is uniqueItems in the OpenAPI bodies of create posts and generate', () => {
    const document = buildOpenApiDocument(REST_ROUTES, 'http://localhost') as { components: { schemas: Schemas } };
    for (const name of ['PostCreate', 'SlideshowGenerateRequest']) {
      expect(document.components.schemas[name]!.properties.platformIds, name).toMatchObject({ uniqueItems: true });
    }
  });

  it('is uniqueItems in the MCP input schemas of create_post and generate_slideshow', () => {
    for (const name of ['create_post', 'generate_slideshow']) {
      const properties = TOOL_BINDINGS.get(name)!.tool.inputSchema.properties as Record<
        string,
        Record<string, unknown>
      >;
      expect(properties.platformIds, name).toMatchObject({ uniqueItems: true });
    }
  });
});
