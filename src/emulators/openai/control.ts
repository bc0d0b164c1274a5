import type Router from '@koa/router';
import { z } from 'zod';
import { FaultSchema } from './faults.js';
import type { OpenAiEmulatorControl } from './state.js';

const LatencySchema = z.object({ chatMs: z.int().min(0).optional(), imagesMs: z.int().min(0).optional() });

/** The control API tests use (JSON, under `/__control`, no auth). It is not part of OpenAI's API. */
export function registerControl(router: Router, control: OpenAiEmulatorControl): void {
  router.put('/__control/latency', (ctx) => {
    const parsed = LatencySchema.safeParse((ctx.state as { body: unknown }).body);
    if (!parsed.success) return void ((ctx.status = 400), (ctx.body = { error: parsed.error.message }));
    control.setLatency(parsed.data);
    ctx.body = control.latency;
  });
  router.get('/__control/faults', (ctx) => {
    ctx.body = { faults: control.faults.list() };
  });
  router.post('/__control/faults', (ctx) => {
    const parsed = FaultSchema.safeParse((ctx.state as { body: unknown }).body);
    if (!parsed.success) return void ((ctx.status = 400), (ctx.body = { error: parsed.error.message }));
    control.faults.add(parsed.data);
    ctx.status = 201;
    ctx.body = parsed.data;
  });
  router.delete('/__control/faults', (ctx) => {
    control.faults.clear();
    ctx.status = 204;
  });
  router.get('/__control/requests', (ctx) => {
    ctx.body = { requests: control.requests() };
  });
  router.delete('/__control/requests', (ctx) => {
    control.clearRequests();
    ctx.status = 204;
  });
  router.post('/__control/reset', (ctx) => {
    control.reset();
    ctx.status = 204;
  });
}
