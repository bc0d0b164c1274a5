import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  McpError,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CoreDeps, Scope } from '../core/context.js';
import { AppError, notFound, toAppError } from '../core/errors.js';
import { invokeOperation } from '../core/operations/invoke.js';
import { getPlatformSchemaOperation, listPlatformsOperation } from '../core/platforms/operations.js';
import { getAiSettings } from '../core/tenancy/ai-settings-update.js';
import type { Logger } from '../logger.js';

const AI_SETTINGS_URI = 'postdeck://workspace/ai-settings';
const SCHEMA_TEMPLATE = 'postdeck://platforms/{platformId}/schema';
const SCHEMA_URI = /^postdeck:\/\/platforms\/([^/]+)\/schema$/;

/**
 * What an agent may read without calling a tool: the workspace's AI defaults (language, slide
 * length, text style, caption size, whether captions learn from top hooks; the system prompt and
 * knowledge base apply on their own) and
 * each connected platform's posting schema, from TikTok's creator info like get_platform_schema.
 */
export function registerResources(server: Server, deps: CoreDeps, scope: Scope, logger: Logger): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const { platforms } = await invokeOperation(deps, scope, listPlatformsOperation, {});
    return {
      resources: [
        {
          uri: AI_SETTINGS_URI,
          name: 'ai-settings',
          title: "The workspace's AI defaults",
          description:
            'Default language, slide length, text style, caption size and useTopHooks (defaultUseTopHooks) used when a call leaves them out',
          mimeType: 'application/json',
        },
        ...platforms.map((platform) => ({
          uri: `postdeck://platforms/${platform.id}/schema`,
          name: `schema-${platform.id}`,
          title: `Posting schema of ${platform.displayHandle ?? platform.displayName ?? platform.id}`,
          description: "This account's posting rules: content limits, media counts, settings, privacy levels",
          mimeType: 'application/json',
        })),
      ],
    };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: SCHEMA_TEMPLATE,
        name: 'platform-schema',
        title: "A platform's posting schema",
        description: 'platformId from list_platforms',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }) => {
    try {
      const value = await read(deps, scope, uri);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
    } catch (error) {
      throw asProtocolError(error, logger);
    }
  });
}

/** A resource failure as JSON-RPC: -32002 for one not found (as MCP names it), the code and message of others. */
function asProtocolError(error: unknown, logger: Logger): McpError {
  const known = toAppError(error, logger, 'MCP resource read');
  if (known.code === 'internal_error') return new McpError(ErrorCode.InternalError, known.message);
  const code = known.code === 'not_found' ? RESOURCE_NOT_FOUND : ErrorCode.InvalidRequest;
  return new McpError(code, `${known.code}: ${known.message}`);
}

const RESOURCE_NOT_FOUND = -32002;

async function read(deps: CoreDeps, scope: Scope, uri: string): Promise<unknown> {
  if (uri === AI_SETTINGS_URI) {
    const { systemPrompt: _prompt, knowledgeBase: _knowledge, ...defaults } = await getAiSettings(deps, scope);
    return defaults;
  }
  const platformId = SCHEMA_URI.exec(uri)?.[1];
  if (!platformId) throw notFound(`Resource ${uri}`);
  const input = getPlatformSchemaOperation.input.safeParse({ id: platformId });
  if (!input.success) throw new AppError('not_found', `Platform ${platformId} not found`);
  return invokeOperation(deps, scope, getPlatformSchemaOperation, input.data);
}
