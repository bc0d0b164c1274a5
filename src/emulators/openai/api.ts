import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { chatContent, lastUserText, strictSchemaProblem } from './chat.js';
import { openAiError, requestId, setStandardHeaders } from './errors.js';
import { answerFault, type Fault } from './faults.js';
import { drawImage, IMAGE_SIZES, OUTPUT_FORMATS } from './images.js';
import type { OpenAiEmulatorControl } from './state.js';

type Body = Record<string, unknown>;

/** The OpenAI endpoints Postdeck uses: chat completions (structured output) and image generation. */
export function registerApi(
  router: Router,
  control: OpenAiEmulatorControl,
  hang: (ctx: Context) => Promise<void>,
): void {
  router.post('/v1/chat/completions', async (ctx) => {
    const body = (ctx.state as { body: Body }).body;
    await handle(
      ctx,
      control,
      hang,
      'chat',
      typeof body.model === 'string' ? body.model : '',
      lastUserText(body),
      (fault) => {
        if (typeof body.model !== 'string' || !body.model) return missing(ctx, 'model');
        if (!Array.isArray(body.messages) || body.messages.length === 0) return missing(ctx, 'messages');
        const format = body.response_format as
          { type?: string; json_schema?: { schema?: Record<string, unknown>; strict?: boolean } } | undefined;
        const problem =
          format?.type === 'json_schema' && format.json_schema?.strict
            ? strictSchemaProblem(format.json_schema.schema ?? {})
            : null;
        if (problem) {
          return openAiError(ctx, 400, {
            message: `Invalid schema for response_format: ${problem}`,
            type: 'invalid_request_error',
            param: 'response_format',
            code: 'invalid_json_schema',
          });
        }
        const { content, refusal } = chatContent(body, fault);
        const completion = Math.ceil((content ?? refusal ?? '').length / 4);
        const prompt = Math.ceil(JSON.stringify(body.messages).length / 4);
        ctx.body = {
          id: `chatcmpl-${randomBytes(12).toString('hex')}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, refusal, annotations: [] },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
          service_tier: 'default',
          system_fingerprint: 'fp_emulator',
        };
      },
    );
  });

  router.post('/v1/images/generations', async (ctx) => {
    const body = (ctx.state as { body: Body }).body;
    const model = typeof body.model === 'string' ? body.model : 'gpt-image-1';
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    await handle(ctx, control, hang, 'images', model, prompt, async () => {
      if (!prompt) return missing(ctx, 'prompt');
      const size =
        body.size === undefined || body.size === 'auto'
          ? '1024x1024'
          : typeof body.size === 'string'
            ? body.size
            : JSON.stringify(body.size);
      if (!(IMAGE_SIZES as readonly string[]).includes(size)) {
        return openAiError(ctx, 400, {
          message: `Invalid value: '${size}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`,
          type: 'invalid_request_error',
          param: 'size',
          code: 'invalid_value',
        });
      }
      if (model.startsWith('gpt-image') && body.response_format !== undefined) {
        return openAiError(ctx, 400, {
          message: "Unknown parameter: 'response_format'.",
          type: 'invalid_request_error',
          param: 'response_format',
          code: 'unknown_parameter',
        });
      }
      const format = (body.output_format ?? 'png') as (typeof OUTPUT_FORMATS)[number];
      if (!OUTPUT_FORMATS.includes(format))
        return openAiError(ctx, 400, {
          message: `Invalid value: '${String(format)}'.`,
          type: 'invalid_request_error',
          param: 'output_format',
          code: 'invalid_value',
        });
      const n = Number(body.n ?? 1);
      const images = await Promise.all(
        Array.from({ length: n }, (_, i) => drawImage(i === 0 ? prompt : `${prompt}#${i}`, size, format)),
      );
      ctx.body = {
        created: Math.floor(Date.now() / 1000),
        background: 'opaque',
        data: images.map((image) => ({ b64_json: image.toString('base64') })),
        output_format: format,
        quality: body.quality ?? 'auto',
        size,
        usage: {
          input_tokens: Math.ceil(prompt.length / 4),
          output_tokens: 1056 * n,
          total_tokens: Math.ceil(prompt.length / 4) + 1056 * n,
          input_tokens_details: { text_tokens: Math.ceil(prompt.length / 4), image_tokens: 0 },
        },
      };
    });
  });
}

/** The steps every API request shares: latency, a queued fault, the answer, headers and the log entry. */
async function handle(
  ctx: Context,
  control: OpenAiEmulatorControl,
  hang: (ctx: Context) => Promise<void>,
  endpoint: 'chat' | 'images',
  model: string,
  text: string,
  answer: (fault: Fault | undefined) => Promise<void> | void,
): Promise<void> {
  const startedAt = Date.now();
  const id = requestId();
  const fault = control.faults.take(endpoint, text);
  await sleep(endpoint === 'chat' ? control.latency.chatMs : control.latency.imagesMs);
  const record = (status: number) =>
    control.record({
      id,
      endpoint,
      model,
      startedAt,
      finishedAt: Date.now(),
      status,
      ...(fault ? { fault: fault.kind } : {}),
      prompt: text,
    });
  if (fault?.kind === 'timeout') {
    await hang(ctx);
    return record(0);
  }
  if (!fault || !answerFault(ctx, fault, model, id)) await answer(fault);
  setStandardHeaders(ctx, id, startedAt);
  record(ctx.status);
}

function missing(ctx: Context, param: string): void {
  openAiError(ctx, 400, {
    message: `Missing required parameter: '${param}'.`,
    type: 'invalid_request_error',
    param,
    code: 'missing_required_parameter',
  });
}
