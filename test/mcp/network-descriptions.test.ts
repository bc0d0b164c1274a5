import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { connectMcpOverHttp } from '../support/mcp.js';

// What an agent reads before choosing an account and posting: the tool list over the real MCP client.
const { t, server } = await useTestServer();
let client: Client | undefined;
afterAll(async () => {
  await client?.close();
});

describe('the MCP tools of accounts and posting', () => {
  it('describe both networks, and how one settings object serves them', async () => {
    client = await connectMcpOverHttp(server.url, (await buildTenant(t.deps)).apiKey);
    const { tools } = await client.listTools();
    const described = (name: string) => tools.find((tool) => tool.name === name)!.description!;
    for (const name of ['list_platforms', 'get_platform_schema', 'create_post', 'generate_slideshow']) {
      expect(described(name), name).toContain('TikTok');
      expect(described(name), name).toContain('Instagram');
    }
    for (const name of ['get_platform_schema', 'create_post', 'generate_slideshow']) {
      expect(described(name), name).toMatch(
        /each (network )?tak(es|ing) (the keys|those) its (posting )?schema declares/,
      );
    }
    expect(described('create_post')).toContain('ignores the keys another network of the request declares');
    expect(client.getInstructions()).toContain('TikTok and Instagram');
  });
});
