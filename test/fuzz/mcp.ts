import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { causeOf, detailsOf, type Finding, type Tally, type Verdict } from './findings.js';
import { mutationsOf } from './mutations.js';
import { seedOf } from './seeds.js';
import { valueOf, type GenerationContext } from './schema-values.js';
import { propertySchema, unstatedRefusals } from './stated-rules.js';
import { schemaErrors } from './validate.js';
import { idKindOfName, idKindOfOperation, type FuzzWorld } from './world.js';

/** The SDK's own client over Streamable HTTP, with the fuzz key. */
export async function connectMcp(world: FuzzWorld): Promise<Client> {
  const client = new Client({ name: 'postdeck-fuzz', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${world.server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${world.apiKey}` } },
  });
  await client.connect(transport);
  return client;
}

function contextFor(world: FuzzWorld, tool: Tool): GenerationContext {
  const destructive = tool.annotations?.destructiveHint === true && tool.name.startsWith('delete');
  const bare = idKindOfOperation(tool.name);
  return {
    root: tool.inputSchema,
    idsFor(name) {
      const kind = name === 'id' ? bare : idKindOfName(name);
      return kind ? world.ids.arbitrary(kind, destructive) : undefined;
    },
    hintFor(name) {
      if (name === 'settings') return fc.constant(world.goodSettings);
      // upload_media: the real image as base64 now and then, beside generated text.
      if (name === 'content' && tool.name === 'upload_media') return fc.constant(world.jpeg.toString('base64'));
      return undefined;
    },
  };
}

/** Arguments that make a call wait on work the fuzz does not run (no worker): bounded time over depth. */
function bounded(tool: Tool, args: unknown): unknown {
  if (tool.name === 'generate_slideshow' && args !== null && typeof args === 'object' && !Array.isArray(args)) {
    return { ...args, wait: false };
  }
  return args;
}

/** Protocol-level malformed calls, sent once per run: each must be refused as invalid params, never -32603. */
const MALFORMED_CALLS: readonly { label: string; params: unknown }[] = [
  { label: 'arguments as an array', params: { name: 'list_platforms', arguments: [] } },
  { label: 'arguments as a string', params: { name: 'get_post', arguments: 'x' } },
  { label: 'arguments as null', params: { name: 'get_post', arguments: null } },
  { label: 'name as a number', params: { name: 5, arguments: {} } },
  { label: 'name missing', params: { arguments: {} } },
  { label: 'an unknown tool', params: { name: 'no_such_tool', arguments: {} } },
  { label: 'params as an array', params: [] },
];

/** An outcome in a word: ok, the error code of an isError result, or the JSON-RPC error. */
function outcomeOf(outcome: Outcome): string {
  if (outcome.error) return `jsonrpc ${outcome.error.code}`;
  return outcome.result!.isError ? (errorOfResult(outcome.result!).code ?? 'error') : 'ok';
}

interface Outcome {
  result?: CallToolResult;
  error?: { code: number; message: string };
}

async function callTool(client: Client, params: unknown): Promise<Outcome> {
  try {
    const result = await client.request({ method: 'tools/call', params: params as never }, CallToolResultSchema, {
      timeout: 120_000,
    });
    return { result };
  } catch (error) {
    if (error instanceof McpError) return { error: { code: error.code, message: error.message } };
    // The transport refused the message before a tool ran; its answer still carries a JSON-RPC code.
    const code = /"code":(-?\d+)/.exec(String(error))?.[1];
    return { error: { code: code === undefined ? -1 : Number(code), message: String(error) } };
  }
}

function errorOfResult(result: CallToolResult): { code?: string; details?: { path?: unknown[]; message?: unknown }[] } {
  const first = result.content[0];
  if (first?.type !== 'text') return {};
  try {
    return (JSON.parse(first.text) as { error?: ReturnType<typeof errorOfResult> }).error ?? {};
  } catch {
    return {};
  }
}

function judge(tool: Tool | undefined, valid: boolean, outcome: Outcome): Verdict | undefined {
  if (outcome.error) {
    if (outcome.error.code === -32603)
      return { kind: 'jsonrpc_internal', note: `JSON-RPC -32603: ${outcome.error.message}` };
    if (outcome.error.code === -1) return { kind: 'server_error', note: outcome.error.message };
    if (valid) return { kind: 'refused_valid', note: `JSON-RPC ${outcome.error.code}: ${outcome.error.message}` };
    return undefined;
  }
  const result = outcome.result!;
  if (result.isError) {
    const error = errorOfResult(result);
    if (error.code === 'internal_error') return { kind: 'internal_error', note: 'an internal_error result' };
    if (valid && error.code === 'invalid_request' && tool) {
      const refused = (error.details ?? []).map((detail) => ({
        field: String(detail.path?.[0]),
        message: String(detail.message),
      }));
      const describe = (field: string) =>
        propertySchema(tool.inputSchema, tool.inputSchema, field)?.description as string | undefined;
      const unstated = unstatedRefusals(refused, describe);
      if (unstated.length > 0) {
        return {
          kind: 'refused_valid',
          note: 'schema-valid arguments refused with invalid_request',
          unstated: unstated.map((each) => causeOf(each.message)),
        };
      }
    }
    return undefined;
  }
  if (tool?.outputSchema) {
    if (result.structuredContent === undefined)
      return { kind: 'response_schema', note: 'no structuredContent though the tool lists an outputSchema' };
    const problem = schemaErrors(tool.outputSchema, result.structuredContent);
    if (problem) return { kind: 'response_schema', note: problem };
  }
  return undefined;
}

export interface McpFuzzOptions {
  seed: number;
  /** Schema-valid calls per tool. */
  valid: number;
  /** Invalid calls per tool. */
  invalid: number;
  /** Counts each answer by tool, argument class and outcome. */
  tally: Tally;
}

/** Calls every listed tool with generated arguments (valid and not), plus the malformed calls. */
export async function fuzzMcp(
  world: FuzzWorld,
  options: McpFuzzOptions,
): Promise<{ findings: Finding[]; calls: number }> {
  const client = await connectMcp(world);
  const findings: Finding[] = [];
  let calls = 0;
  const record = (
    tool: Tool | undefined,
    label: string,
    valid: boolean,
    params: unknown,
    outcome: Outcome,
    seed: number,
  ) => {
    const verdict = judge(tool, valid, outcome);
    if (!verdict) return;
    const error = outcome.result ? errorOfResult(outcome.result) : undefined;
    findings.push({
      ...verdict,
      surface: 'mcp',
      operation: label,
      valid,
      request: { method: 'tools/call', body: params },
      code: outcome.error ? `jsonrpc ${outcome.error.code}` : error?.code,
      ...detailsOf(error?.details),
      response: JSON.stringify(outcome.error ?? outcome.result),
      seed,
    });
  };
  try {
    const { tools } = await client.listTools();
    for (const malformed of MALFORMED_CALLS) {
      const outcome = await callTool(client, malformed.params);
      calls += 1;
      record(undefined, `tools/call with ${malformed.label}`, false, malformed.params, outcome, 0);
    }
    for (const tool of tools) {
      const generate = valueOf(tool.inputSchema, contextFor(world, tool));
      for (let i = 0; i < options.valid + options.invalid; i += 1) {
        const seed = seedOf(options.seed, tool.name, i);
        const candidate = bounded(tool, fc.sample(generate, { seed, numRuns: 1 })[0]);
        const args =
          i < options.valid ? candidate : bounded(tool, fc.sample(mutationsOf(candidate), { seed, numRuns: 1 })[0]);
        const valid = schemaErrors(tool.inputSchema, args) === undefined;
        const params = { name: tool.name, arguments: args };
        const outcome = await callTool(client, params);
        calls += 1;
        options.tally.add(tool.name, valid, outcomeOf(outcome));
        record(tool, tool.name, valid, params, outcome, seed);
      }
    }
  } finally {
    await client.close();
  }
  return { findings, calls };
}
