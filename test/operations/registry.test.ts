import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AppError, relocateIssues } from '../../src/core/errors.js';
import { parseOperationInput } from '../../src/core/operations/input.js';
import { OPERATIONS } from '../../src/core/operations/registry.js';
import { createPostOperation, publishPostOperation } from '../../src/core/posts/operations.js';
import { buildOpenApiDocument } from '../../src/http/api/openapi.js';
import { REST_ROUTES } from '../../src/http/api/routes.js';

type OpenApiOperation = { operationId: string; summary: string; responses: Record<string, unknown> };
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

const ENDPOINT_WORDS = /\b(GET|POST|PATCH|PUT|DELETE) \/|\/public\/v1|\/platforms|\/posts|\/media/;

function parseError(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

/** Every `.describe()` text of an input's fields, nested ones included. */
function descriptions(schema: z.ZodType): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    const node = value as { description?: unknown; def?: Record<string, unknown> };
    if (typeof node.description === 'string') found.push(node.description);
    for (const child of Object.values(node.def ?? {})) {
      if (Array.isArray(child)) child.forEach(visit);
      else if (typeof child === 'object' && child !== null && !('def' in child)) Object.values(child).forEach(visit);
      else visit(child);
    }
  };
  visit(schema);
  return found;
}

describe('the operations registry', () => {
  it('names each operation once, in snake_case, with a title, a summary and hints', () => {
    const names = OPERATIONS.map((operation) => operation.name);
    expect(new Set(names).size).toBe(names.length);
    for (const operation of OPERATIONS) {
      expect(operation.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(operation.title.length).toBeGreaterThan(3);
      expect(operation.summary.length).toBeGreaterThan(10);
      expect(Object.keys(operation.hints).sort()).toEqual(['destructive', 'idempotent', 'openWorld', 'readOnly']);
      if (operation.hints.readOnly) expect(operation.hints.destructive).toBe(false);
    }
  });

  it('describes operations and their fields for any caller, never by an endpoint', () => {
    for (const operation of OPERATIONS) {
      const texts = [operation.title, operation.summary, operation.result, ...descriptions(operation.input)];
      for (const text of texts)
        expect([operation.name, text]).not.toEqual([operation.name, expect.stringMatching(ENDPOINT_WORDS)]);
    }
  });

  it('binds every operation to exactly one REST route, and the OpenAPI document lists each', () => {
    const bound = REST_ROUTES.map((route) => route.operation.name).sort();
    expect(bound).toEqual(OPERATIONS.map((operation) => operation.name).sort());
    const document = buildOpenApiDocument(REST_ROUTES, 'http://127.0.0.1') as OpenApiDocument;
    const listed = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    for (const operation of OPERATIONS) {
      const operationId = operation.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
      const entry = listed.find((candidate) => candidate.operationId === operationId);
      expect(entry, operation.name).toMatchObject({ summary: operation.title, description: operation.summary });
    }
  });

  it('docs/architecture.md names, for every endpoint, its operation and the file that declares it', () => {
    const lines = readFileSync('docs/architecture.md', 'utf8').split('\n');
    for (const route of REST_ROUTES) {
      const endpoint = `${route.method.toUpperCase()} /public/v1${route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
      const row = lines.find((line) => line.startsWith(`| \`${endpoint}\``));
      expect(row, endpoint).toContain(`\`${route.operation.name}\``);
      const file = /\| `(src\/core\/[^`]+\/[a-z-]*operations\.ts)`/.exec(row ?? '')?.[1];
      expect(file && readFileSync(file, 'utf8'), endpoint).toContain(`name: '${route.operation.name}'`);
    }
  });
});

describe('operation input', () => {
  const platformIds = [randomUUID()];

  it('applies a rule across fields with the schema, at paths relative to the input', () => {
    const error = parseError(() =>
      parseOperationInput(createPostOperation, { platformIds, content: 'hi', mode: 'schedule' }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([
      { path: ['scheduledFor'], message: 'scheduledFor is required when mode is schedule' },
    ]);
    const publish = parseError(() => parseOperationInput(publishPostOperation, { id: randomUUID(), mode: 'schedule' }));
    expect(publish.details?.map((detail) => detail.path)).toEqual([['scheduledFor']]);
  });

  it('reports schema issues at their input path, ids included, and relocates them when asked', () => {
    const error = parseError(() =>
      parseOperationInput(publishPostOperation, { id: 'nope', mode: 'later' }, (path) => ['args', ...path]),
    );
    expect(error.details?.map((detail) => detail.path)).toEqual([
      ['args', 'id'],
      ['args', 'mode'],
    ]);
    expect(error.message).toMatch(/^The request is not valid \(args\.id: .*; args\.mode: /);
  });

  it('passes a valid input through with its defaults', () => {
    const input = parseOperationInput(createPostOperation, { platformIds, content: 'hi', mode: 'draft' });
    expect(input).toEqual({ platformIds, content: 'hi', mode: 'draft', mediaIds: [], threadReplies: [] });
  });

  it('leaves a path about stored data where it is and never shows the marker', () => {
    const relocated = relocateIssues(
      [
        { path: ['content'], message: 'too long' },
        { path: ['settings', 'privacy_level'], message: 'no longer offered', stored: true },
      ],
      (path) => ['body', ...path],
    );
    expect(relocated).toEqual([
      { path: ['body', 'content'], message: 'too long' },
      { path: ['settings', 'privacy_level'], message: 'no longer offered' },
    ]);
  });
});
