import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import Koa from 'koa';
import { createPublicRouter } from '../../src/http/api/public-router.js';
import { errorMiddleware } from '../../src/http/middleware/errors.js';
import { requestContext } from '../../src/http/middleware/request-context.js';
import { defineOperation } from '../../src/core/operations/operation.js';
import { bindRest } from '../../src/http/api/rest-route.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import type { AppState } from '../../src/http/shared/context.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';

// The body-taking routes arrive with later capabilities; this one exercises the same router
// pipeline (auth, JSON body reader, zod validation, error middleware) that they will use.
const probeHints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const echoRoute = bindRest(
  defineOperation({
    name: 'echo',
    title: 'Echo',
    summary: 'echo',
    input: z.object({ name: z.string().min(1).max(10), count: z.number().int().min(3) }),
    result: 'echoed',
    errors: ['invalid_request'],
    hints: probeHints,
    run: (_deps, scope, input) => Promise.resolve({ ...input, workspaceId: scope.workspaceId }),
  }),
  { method: 'post', path: '/echo', status: 201, tag: 'Test' },
);

const explodeRoute = bindRest(
  defineOperation({
    name: 'explode',
    title: 'Explode',
    summary: 'explode',
    input: z.object({}),
    result: 'never',
    errors: [],
    hints: probeHints,
    run: () => Promise.reject(new Error('secret internal detail: mongodb://user:pw@host')),
  }),
  { method: 'get', path: '/explode', status: 200, tag: 'Test' },
);

let t: TestDatabase;
let http: RunningHttpServer;
let app: TestServer;
let apiKey: string;

beforeAll(async () => {
  t = await openTestDatabase();
  apiKey = (await buildTenant(t.deps)).apiKey;
  const koa = new Koa<AppState>();
  koa.silent = true;
  koa.use(requestContext(t.deps.logger));
  koa.use(errorMiddleware(t.deps.logger));
  koa.use(createPublicRouter(t.deps, [echoRoute, explodeRoute], 1024).routes());
  http = await startHttpServer(koa, { host: '127.0.0.1', port: 0 });
  app = await startTestServer(t);
});
afterAll(async () => {
  await http.stop();
  await app.stop();
  await t.close();
});

function post(body: string | Uint8Array, contentType = 'application/json', key = apiKey): Promise<Response> {
  return fetch(`${http.url}/public/v1/echo`, {
    method: 'POST',
    headers: { 'content-type': contentType, authorization: `Bearer ${key}` },
    body,
  });
}

async function expectError(response: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ code, message: expect.any(String) });
  return body;
}

describe('bad input gets a clear 4xx in the spec error shape', () => {
  it('accepts a valid body', async () => {
    const response = await post(JSON.stringify({ name: 'ok', count: 3 }));
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: 'ok', count: 3 });
  });

  it('rejects malformed JSON with 400 invalid_request', async () => {
    await expectError(await post('{"name": "x",'), 400, 'invalid_request');
  });

  it('rejects an oversized body with 413 payload_too_large', async () => {
    await expectError(await post(JSON.stringify({ name: 'x'.repeat(5000), count: 3 })), 413, 'payload_too_large');
  });

  it('rejects an oversized chunked body with 413 too', async () => {
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(200)));
        controller.close();
      },
    });
    const response = await fetch(`${http.url}/public/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: stream,
      duplex: 'half',
    });
    await expectError(response, 413, 'payload_too_large');
  });

  it('rejects a wrong content type with 415 unsupported_media_type', async () => {
    await expectError(await post('name=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
  });

  it('lists every validation issue with its path', async () => {
    const body = await expectError(await post(JSON.stringify({ name: '', count: 1 })), 400, 'invalid_request');
    const paths = (body.details as { path: string[] }[]).map((d) => d.path.join('.'));
    expect(paths.sort()).toEqual(['body.count', 'body.name']);
  });

  it('checks the key before validating the body', async () => {
    await expectError(await post('not json', 'application/json', 'bad'), 401, 'invalid_api_key');
  });

  it('answers an unknown error with a 500 that leaks nothing', async () => {
    const response = await fetch(`${http.url}/public/v1/explode`, { headers: { authorization: `Bearer ${apiKey}` } });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ code: 'internal_error', message: expect.any(String) });
    expect(text).not.toContain('secret');
  });

  it('answers an unknown path with 404 not_found and echoes a request id', async () => {
    const response = await app.request('/public/v1/nope', { apiKey });
    await expectError(response, 404, 'not_found');
    expect(response.headers.get('x-request-id')).toMatch(/.{8,}/);
  });
});

describe('probes and API documents', () => {
  it('answers /healthz and /readyz', async () => {
    expect(await (await app.request('/healthz')).json()).toEqual({ status: 'ok' });
    expect(await (await app.request('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const doc = (await (await app.request('/public/v1/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths['/public/v1/platforms']!.get!.responses).sort()).toEqual(['200', '401']);
    expect(Object.keys(doc.components.schemas.Platform!.properties)).toContain('refreshNeeded');
    // The device flow, how agents get a key, is documented too, with its RFC error values.
    expect(Object.keys(doc.paths['/auth/device/token']!.post!.responses).sort()).toEqual(['200', '400', '429']);
    // Every status the server really answers: JSON bodies can be too large or not JSON.
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses).sort();
    expect(statuses('/public/v1/posts', 'post')).toEqual(expect.arrayContaining(['400', '413', '415']));
    expect(statuses('/auth/device/start', 'post')).toEqual(['200', '400', '413', '415', '429']);
    // mode schedule needs scheduledFor, said in the body schemas themselves.
    for (const name of ['PostCreate', 'PostPublish']) {
      expect(doc.components.schemas[name]).toMatchObject({
        if: { properties: { mode: { const: 'schedule' } }, required: ['mode'] },
        then: { required: ['scheduledFor'] },
      });
    }
    expect(statuses('/auth/device/approve', 'post')).toEqual(
      expect.arrayContaining(['400', '401', '404', '409', '413', '415', '429']),
    );
    expect(JSON.stringify(doc.components.schemas.DeviceTokenError)).toContain('slow_down');
  });

  it('serves a readable reference page', async () => {
    const response = await app.request('/public/v1/docs');
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await response.text()).toContain('<script src="docs/redoc.standalone.js"></script>');
    const bundle = await app.request('/public/v1/docs/redoc.standalone.js');
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect(await bundle.text()).not.toContain('cdn.redoc.ly');
  });
});
