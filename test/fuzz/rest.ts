import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { causeOf, detailsOf, type Finding, type Tally, type Verdict } from './findings.js';
import { MALFORMED_BODIES, mutationsOf } from './mutations.js';
import { seedOf } from './seeds.js';
import { dereference, valueOf, type GenerationContext, type JsonSchema } from './schema-values.js';
import { propertySchema, unstatedRefusals } from './stated-rules.js';
import { schemaErrors } from './validate.js';
import { idKindOfName, idKindOfOperation, type FuzzWorld, type IdKind } from './world.js';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: JsonSchema;
  required: boolean;
}

/** One operation of the OpenAPI document, as the fuzz needs it. */
export interface RestOperation {
  label: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** `schema` as the document has it; `resolved` with its `$ref`s replaced, for the validator. */
  body?: { contentType: string; schema: JsonSchema; resolved: JsonSchema; required: boolean };
  /** Documented statuses, each with its body schema (`$ref`s resolved) or null when it has none. */
  responses: Map<number, JsonSchema | null>;
  auth: 'apiKey' | 'session' | 'none';
}

interface RestRequest {
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body?: unknown;
  /** A body sent as it is (malformed JSON, bytes), instead of `body` as JSON. */
  raw?: string;
  contentType?: string;
  auth: 'good' | 'none' | 'bad';
}

/** Every operation in the document, in document order. */
export function operationsOf(document: Record<string, unknown>): RestOperation[] {
  const operations: RestOperation[] = [];
  const defaultSecurity = document.security as Record<string, unknown>[] | undefined;
  for (const [path, item] of Object.entries(
    document.paths as Record<string, Record<string, Record<string, unknown>>>,
  )) {
    for (const [method, operation] of Object.entries(item)) {
      const parameters = ((operation.parameters ?? []) as Parameter[]).map((parameter) => ({
        name: parameter.name,
        in: parameter.in,
        required: parameter.required === true,
        schema: dereference(document, parameter.schema) as JsonSchema,
      }));
      const requestBody = operation.requestBody as
        { required?: boolean; content: Record<string, { schema: JsonSchema }> } | undefined;
      const [contentType, media] = Object.entries(requestBody?.content ?? {})[0] ?? [];
      const responses = new Map<number, JsonSchema | null>();
      for (const [status, response] of Object.entries(
        operation.responses as Record<string, { content?: Record<string, { schema: JsonSchema }> }>,
      )) {
        const schema = response.content?.['application/json']?.schema;
        responses.set(Number(status), schema ? (dereference(document, schema) as JsonSchema) : null);
      }
      const security = (operation.security ?? defaultSecurity ?? []) as Record<string, unknown>[];
      const auth = security.length === 0 ? 'none' : 'session' in security[0]! ? 'session' : 'apiKey';
      operations.push({
        label: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        ...(contentType && media
          ? {
              body: {
                contentType,
                schema: media.schema,
                resolved: dereference(document, media.schema) as JsonSchema,
                required: requestBody?.required === true,
              },
            }
          : {}),
        responses,
        auth,
      });
    }
  }
  return operations;
}

function contextFor(world: FuzzWorld, document: object, operation: RestOperation): GenerationContext {
  const destructive = operation.method === 'DELETE';
  const bare = idKindOfOperation(operation.path.replace(/\{[^}]+\}.*$/, ''));
  return {
    root: document,
    idsFor(name) {
      const kind: IdKind | undefined = name === 'id' ? bare : idKindOfName(name);
      return kind ? world.ids.arbitrary(kind, destructive) : undefined;
    },
    hintFor(name) {
      if (name === 'settings') return fc.constant(world.goodSettings);
      if (name === 'content' && operation.body?.contentType === 'multipart/form-data') return undefined;
      return undefined;
    },
  };
}

function recordOf(parameters: Parameter[], ctx: GenerationContext): fc.Arbitrary<Record<string, unknown>> {
  const model = Object.fromEntries(parameters.map((p) => [p.name, valueOf(p.schema, ctx, p.name)] as const));
  return fc.record(model, { requiredKeys: parameters.filter((p) => p.required).map((p) => p.name) });
}

function validRequests(world: FuzzWorld, document: object, operation: RestOperation): fc.Arbitrary<RestRequest> {
  const ctx = contextFor(world, document, operation);
  const of = (where: Parameter['in']) =>
    recordOf(
      operation.parameters.filter((p) => p.in === where),
      ctx,
    );
  const body = operation.body;
  let bodies: fc.Arbitrary<unknown> = fc.constant(undefined);
  if (body) {
    const values = valueOf(body.schema, ctx);
    bodies = body.required ? values : fc.option(values, { nil: undefined });
  }
  return fc.record({
    pathParams: of('path'),
    query: of('query'),
    headers: of('header'),
    body: bodies,
    auth: fc.constant('good' as const),
  });
}

const BAD_PATH_VALUES = ['x', '1', 'x'.repeat(201), 'x'.repeat(5_000), '%00', '..', 'null', '😀', ' ', '$gt', 'a.b'];
const BAD_HEADER_VALUES = ['', ' ', 'x'.repeat(300), '\t', 'a,b'];

/** Invalid variants of a valid request: a broken body, a wrong parameter, a missing or bad key. */
function invalidRequests(valid: RestRequest, operation: RestOperation): fc.Arbitrary<RestRequest> {
  const variants: fc.Arbitrary<RestRequest>[] = [
    fc.constantFrom<RestRequest['auth']>('none', 'bad').map((auth) => ({ ...valid, auth })),
  ];
  if (operation.body) {
    if (operation.body.contentType === 'application/json') {
      variants.push(mutationsOf(valid.body ?? {}).map((body) => ({ ...valid, body })));
      variants.push(mutationsOf(valid.body ?? {}).map((body) => ({ ...valid, body })));
      variants.push(fc.constantFrom(...MALFORMED_BODIES).map((raw) => ({ ...valid, raw })));
      variants.push(
        fc
          .constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/json; charset=latin1',
            'multipart/form-data',
          )
          .map((contentType) => ({ ...valid, contentType, raw: JSON.stringify(valid.body ?? {}) })),
      );
    } else if (operation.body.contentType === 'multipart/form-data') {
      variants.push(
        mutationsOf(valid.body ?? {}).map((body) => ({
          ...valid,
          body: body !== null && typeof body === 'object' && !Array.isArray(body) ? body : { file: body },
        })),
      );
      variants.push(
        fc
          .constantFrom(...MALFORMED_BODIES)
          .map((raw) => ({ ...valid, raw, contentType: 'multipart/form-data; boundary=x' })),
      );
    }
  }
  for (const parameter of operation.parameters) {
    const values = parameter.in === 'header' ? BAD_HEADER_VALUES : BAD_PATH_VALUES;
    const where = parameter.in === 'path' ? 'pathParams' : parameter.in === 'query' ? 'query' : 'headers';
    variants.push(
      fc.constantFrom(...values).map((value) => ({ ...valid, [where]: { ...valid[where], [parameter.name]: value } })),
    );
  }
  return fc.oneof(...variants);
}

/** Whether the request matches every schema of the operation (so any refusal needs a stated rule). */
function validity(operation: RestOperation, request: RestRequest): string | undefined {
  if (request.raw !== undefined || request.auth !== 'good') return 'not a schema-valid request';
  for (const parameter of operation.parameters) {
    const where =
      parameter.in === 'path' ? request.pathParams : parameter.in === 'query' ? request.query : request.headers;
    // HTTP carries a header value without its leading and trailing whitespace: judge what is sent.
    const given = where[parameter.name];
    const value = parameter.in === 'header' && typeof given === 'string' ? given.trim() : given;
    if (value === undefined) {
      if (parameter.required) return `${parameter.name} missing`;
      continue;
    }
    const problem = schemaErrors(parameter.schema, value);
    if (problem) return `${parameter.in} ${parameter.name}: ${problem}`;
    if (parameter.in !== 'header' && textOf(value).length === 0) return `${parameter.name} is empty in the URL`;
  }
  if (operation.body) {
    if (request.body === undefined) return operation.body.required ? 'body missing' : undefined;
    // A form field's name travels in a part header, where control characters cannot.
    if (
      operation.body.contentType === 'multipart/form-data' &&
      Object.keys(request.body as object).some((name) => /[\u0000-\u001f\u007f]/.test(name))
    ) {
      return 'a form field name with a control character';
    }
    return schemaErrors(operation.body.resolved, request.body);
  }
  return undefined;
}

/** A parameter as it travels in a URL or header: text as is, anything else as JSON. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  return JSON.stringify(value) ?? '';
}

/** Percent-encodes UTF-8 as a client would, a lone surrogate included (as U+FFFD, which encodeURIComponent refuses). */
function encodeSegment(text: string): string {
  return [...new TextEncoder().encode(text)]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

function urlOf(operation: RestOperation, request: RestRequest): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeSegment(textOf(request.pathParams[name] ?? '')),
  );
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query)) if (value !== undefined) query.set(name, textOf(value));
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

function multipartOf(world: FuzzWorld, fields: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'file') continue;
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const file = fields.file;
  if (file !== undefined) {
    // The file part: the real image for most requests, else the generated text as bytes.
    const bytes = typeof file === 'string' && file.length % 3 !== 0 ? Buffer.from(file) : world.jpeg;
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), 'fuzz.bin');
  }
  return form;
}

interface Answer {
  status: number;
  text: string;
}

async function send(world: FuzzWorld, operation: RestOperation, request: RestRequest): Promise<Answer> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, textOf(value));
  }
  const credential = operation.auth === 'session' ? world.session : world.apiKey;
  if (request.auth === 'good' && operation.auth !== 'none') headers.set('authorization', `Bearer ${credential}`);
  if (request.auth === 'bad') headers.set('authorization', 'Bearer service_sk_not-a-real-key');
  let body: string | FormData | Uint8Array | undefined;
  if (request.raw !== undefined) {
    body = request.raw;
    headers.set('content-type', request.contentType ?? operation.body?.contentType ?? 'application/json');
  } else if (request.body !== undefined && operation.body) {
    if (operation.body.contentType === 'multipart/form-data') {
      body = multipartOf(world, request.body as Record<string, unknown>);
    } else if (operation.body.contentType === 'application/octet-stream') {
      body = new Uint8Array(
        typeof request.body === 'string' && request.body.length % 2 === 0 ? randomBytes(64) : world.jpeg,
      );
      headers.set('content-type', 'application/octet-stream');
    } else {
      body = JSON.stringify(request.body);
      headers.set('content-type', request.contentType ?? 'application/json');
    }
  }
  const response = await fetch(`${world.server.url}${urlOf(operation, request)}`, {
    method: operation.method,
    headers,
    body,
    signal: AbortSignal.timeout(120_000),
  });
  return { status: response.status, text: await response.text() };
}

function parse(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return Symbol.for('not json');
  }
}

function detailListOf(body: unknown): { path: unknown[]; message: string }[] {
  const details = (body as { details?: { path?: unknown; message?: unknown }[] } | undefined)?.details;
  return Array.isArray(details)
    ? details.map((detail) => ({
        path: Array.isArray(detail.path) ? detail.path : [],
        message: String(detail.message),
      }))
    : [];
}

/** What is wrong with an answer, if anything. */
function judge(
  world: FuzzWorld,
  document: object,
  operation: RestOperation,
  request: RestRequest,
  valid: boolean,
  answer: Answer,
): Verdict | undefined {
  const body = parse(answer.text);
  const code = (body as { code?: unknown } | undefined)?.code;
  if (answer.status >= 500) return { kind: 'server_error', note: `answered ${answer.status}` };
  // Node refuses a request line over its 16 KB header limit before Postdeck sees it: HTTP's limit, not the API's.
  if (answer.status === 431 && urlOf(operation, request).length > 8_192) return undefined;
  if (code === 'internal_error') return { kind: 'internal_error', note: 'an internal_error body' };
  if (!operation.responses.has(answer.status)) {
    return {
      kind: 'undocumented_status',
      note: `${answer.status} is not among ${[...operation.responses.keys()].join(', ')}`,
    };
  }
  const schema = operation.responses.get(answer.status);
  if (schema) {
    if (typeof body === 'symbol' || body === undefined)
      return { kind: 'response_schema', note: 'the body is not JSON' };
    const problem = schemaErrors(schema, body);
    if (problem) return { kind: 'response_schema', note: problem };
  }
  if (valid && answer.status === 400 && code === 'invalid_request') {
    // REST detail paths start with where the field was: body, query, path or headers.
    const details = detailListOf(body);
    const refused = details.map((detail) => ({ field: String(detail.path[1]), message: detail.message }));
    const describe = (field: string): string | undefined => {
      const place = details.find((detail) => detail.path[1] === field)?.path[0];
      const schema =
        place === 'body'
          ? operation.body && propertySchema(document, operation.body.schema, field)
          : operation.parameters.find((p) => p.name.toLowerCase() === field.toLowerCase())?.schema;
      return schema?.description as string | undefined;
    };
    const unstated = unstatedRefusals(refused, describe);
    if (unstated.length > 0) {
      return {
        kind: 'refused_valid',
        note: 'a schema-valid request refused with invalid_request',
        unstated: unstated.map((each) => causeOf(each.message)),
      };
    }
  }
  if (answer.status < 300) {
    const foreign = Object.values(request.pathParams).find(
      (value) => typeof value === 'string' && world.ids.isOther(value),
    );
    if (foreign)
      return { kind: 'cross_workspace', note: `another workspace's ${textOf(foreign)} answered ${answer.status}` };
  }
  return undefined;
}

/** Ids the answer made, so later requests act on them (and deletes have something of their own to delete). */
function harvest(world: FuzzWorld, operation: RestOperation, request: RestRequest, answer: Answer): void {
  if (answer.status >= 300) return;
  const body = parse(answer.text);
  const kind = idKindOfOperation(operation.path.replace(/\{[^}]+\}.*$/, ''));
  if (operation.method === 'DELETE' && kind && typeof request.pathParams.id === 'string') {
    world.ids.forget(kind, request.pathParams.id);
  }
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (kind && typeof record.id === 'string') world.ids.addMade(kind, record.id);
      if (typeof record.jobId === 'string') world.ids.addMade('job', record.jobId);
      if (typeof record.uploadUrl === 'string') world.ids.addMade('secret', record.uploadUrl.split('/').pop()!);
      Object.values(record).forEach(walk);
    }
  };
  walk(body);
}

export interface RestFuzzOptions {
  seed: number;
  /** Schema-valid requests per operation. */
  valid: number;
  /** Invalid requests per operation. */
  invalid: number;
  /** Counts each answer by operation, request class and status. */
  tally: Tally;
}

/** Fuzzes every operation of the document: returns the findings and how many requests were sent. */
export async function fuzzRest(
  world: FuzzWorld,
  document: Record<string, unknown>,
  options: RestFuzzOptions,
): Promise<{ findings: Finding[]; requests: number }> {
  const findings: Finding[] = [];
  let requests = 0;
  for (const operation of operationsOf(document)) {
    for (let i = 0; i < options.valid + options.invalid; i += 1) {
      const seed = seedOf(options.seed, operation.label, i);
      const candidate = fc.sample(validRequests(world, document, operation), { seed, numRuns: 1 })[0]!;
      const request =
        i < options.valid ? candidate : fc.sample(invalidRequests(candidate, operation), { seed, numRuns: 1 })[0]!;
      const valid = validity(operation, request) === undefined;
      let answer: Answer;
      try {
        answer = await send(world, operation, request);
      } catch (error) {
        if (error instanceof TypeError && /header|ByteString/i.test(String(error.message))) continue; // not sendable
        answer = { status: 599, text: `no answer: ${String(error)}` };
      }
      requests += 1;
      options.tally.add(operation.label, valid, String(answer.status));
      harvest(world, operation, request, answer);
      const verdict = judge(world, document, operation, request, valid, answer);
      if (!verdict) continue;
      const body = parse(answer.text);
      findings.push({
        ...verdict,
        surface: 'rest',
        operation: operation.label,
        valid,
        request: {
          method: operation.method,
          path: urlOf(operation, request),
          headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, textOf(v)])),
          ...(request.raw !== undefined ? { raw: request.raw } : { body: request.body }),
        },
        status: answer.status,
        code:
          typeof (body as { code?: unknown } | undefined)?.code === 'string'
            ? (body as { code: string }).code
            : undefined,
        ...detailsOf((body as { details?: unknown } | undefined)?.details),
        response: answer.text,
        seed,
      });
    }
  }
  return { findings, requests };
}
