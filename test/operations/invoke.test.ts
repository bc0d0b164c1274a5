import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CoreDeps, Scope } from '../../src/core/context.js';
import { AppError, INTERNAL_ERROR_MESSAGE, toAppError } from '../../src/core/errors.js';
import { invokeOperation, prepareOperation } from '../../src/core/operations/invoke.js';
import { defineOperation } from '../../src/core/operations/operation.js';
import { createLogger } from '../../src/logger.js';

const runs: unknown[] = [];
// A probe operation: a schema, a rule across fields, and a run that records what it was given.
const rangeOperation = defineOperation({
  name: 'probe_range',
  title: 'Probe a range',
  summary: 'records a range whose start comes before its end',
  input: z.object({ id: z.uuid(), from: z.int(), to: z.int() }),
  check: (input) => (input.from < input.to ? [] : [{ path: ['to'], message: 'to must be after from' }]),
  result: 'the range',
  errors: ['invalid_request'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run(_deps, _scope, input) {
    runs.push(input);
    if (input.from < 0) return Promise.reject(invalidAt(['from']));
    return Promise.resolve(input);
  },
});

const invalidAt = (path: (string | number)[]) =>
  new AppError('invalid_request', 'negative', [{ path, message: 'negative' }]);
// The probe's run reads neither; they stand in for what a surface passes.
const deps = {} as CoreDeps;
const scope: Scope = { workspaceId: randomUUID(), accountId: randomUUID(), actor: { type: 'system' } };

async function refusal(call: () => unknown): Promise<AppError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('invokeOperation', () => {
  it("parses with the operation's schema and runs its check before its run", async () => {
    const id = randomUUID();
    expect(await invokeOperation(deps, scope, rangeOperation, { id, from: 1, to: 2 })).toEqual({ id, from: 1, to: 2 });
    const before = runs.length;
    const bad = await refusal(() => invokeOperation(deps, scope, rangeOperation, { id: 'nope', from: 1, to: 2 }));
    expect(bad.details).toEqual([{ path: ['id'], message: expect.any(String) }]);
    const crossed = await refusal(() => invokeOperation(deps, scope, rangeOperation, { id, from: 3, to: 2 }));
    expect(crossed).toMatchObject({
      code: 'invalid_request',
      details: [{ path: ['to'], message: 'to must be after from' }],
    });
    expect(runs.length).toBe(before);
  });

  it('reads a parted input part by part, issues under the part, and relocates the check and the run', async () => {
    const rest = (path: (string | number)[]) => [path[0] === 'id' ? 'params' : 'body', ...path];
    const parts = (id: unknown, body: unknown) => ({
      parts: [
        { where: 'params', schema: rangeOperation.input.pick({ id: true }), value: { id } },
        { where: 'body', schema: rangeOperation.input.pick({ from: true, to: true }).strict(), value: body },
      ],
    });
    const id = randomUUID();
    const call = prepareOperation(rangeOperation, parts(id, { from: 1, to: 2 }), rest);
    expect(call.parts).toEqual({ params: { id }, body: { from: 1, to: 2 } });
    expect(await call.run(deps, scope)).toEqual({ id, from: 1, to: 2 });

    // A field sent in the wrong part is refused there, at its own path, not picked up.
    const misplaced = await refusal(() => prepareOperation(rangeOperation, parts(id, { id, from: 1, to: 2 }), rest));
    expect(misplaced.details).toEqual([{ path: ['body', 'id'], message: expect.stringContaining('id') }]);
    const crossed = await refusal(() => prepareOperation(rangeOperation, parts(id, { from: 2, to: 1 }), rest));
    expect(crossed.details).toEqual([{ path: ['body', 'to'], message: 'to must be after from' }]);
    const ran = await refusal(() =>
      prepareOperation(rangeOperation, parts(id, { from: -2, to: 1 }), rest).run(deps, scope),
    );
    expect(ran.details).toEqual([{ path: ['body', 'from'], message: 'negative' }]);
  });
});

describe('toAppError', () => {
  it('logs an unknown error once, at error level with its stack, and answers internal_error without its text', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
    const known = invalidAt(['x']);
    expect(toAppError(known, logger, 'probing')).toBe(known);
    expect(lines).toEqual([]);

    const answer = toAppError(new Error('secret internal detail'), logger, 'probing', { probe: 7 });
    expect(answer).toMatchObject({ code: 'internal_error', message: INTERNAL_ERROR_MESSAGE });
    expect(answer.message).not.toContain('secret');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { level: number; msg: string; probe: number; err: { stack: string } };
    expect(line).toMatchObject({ level: 50, msg: 'probing failed', probe: 7 });
    expect(line.err.stack).toContain('secret internal detail');
  });
});
