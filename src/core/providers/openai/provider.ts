import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import type { Logger } from '../../../logger.js';
import { AppError } from '../../errors.js';
import { NO_METRICS, type Metrics } from '../../ops/metrics.js';
import type { AiProviderConfig } from './config.js';
import { classifyFailure } from './failures.js';

/** The sizes GPT image models draw: square, portrait 2:3, landscape 3:2. */
export type ImageSize = '1024x1024' | '1024x1536' | '1536x1024';

/** A JSON answer the model must give: the strict JSON schema it is held to, and how to check it further. */
export interface StructuredRequest<T> {
  /** What the call is for, in logs (`captions`); never the prompt. */
  purpose: string;
  system: string;
  user: string;
  schemaName: string;
  jsonSchema: Record<string, unknown>;
  /** Turns the parsed JSON into the result, or says why it is not acceptable (then the call is tried again). */
  accept(value: unknown): { ok: true; value: T } | { ok: false; reason: string };
}

/** The AI provider as core uses it: structured text and images, failures already mapped to AppErrors. */
export interface AiProvider {
  readonly emulated: boolean;
  structured<T>(request: StructuredRequest<T>): Promise<T>;
  image(request: { purpose: string; prompt: string; size: ImageSize }): Promise<Buffer>;
}

/** The provider over the `openai` SDK; the SDK's own retries are off, this one's are bounded and logged. */
export function createAiProvider(config: AiProviderConfig, logger: Logger, metrics: Metrics = NO_METRICS): AiProvider {
  const client = new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseUrl,
    maxRetries: 0,
    fetch: countedFetch(config.baseUrl, metrics),
  });
  const gptImage = config.imageModel.startsWith('gpt-image') || config.imageModel === 'chatgpt-image-latest';

  async function withRetries<T>(purpose: string, call: (attempt: number) => Promise<T>): Promise<T> {
    let retryWaitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(attempt);
      } catch (error) {
        // Already an outcome (a refusal): nothing to retry.
        if (error instanceof AppError) throw error;
        const decision = error instanceof MalformedOutput ? malformed(error) : classifyFailure(error, attempt);
        const requestId = error instanceof OpenAI.APIError ? error.requestID : undefined;
        const status = error instanceof OpenAI.APIError ? (error.status as number | undefined) : undefined;
        const code = decision.error.code;
        const canWait = decision.retry && retryWaitedMs + decision.waitMs <= config.maxRetryWaitMs;
        if (!decision.retry || attempt >= config.attempts || !canWait) {
          logger.warn({ purpose, attempt, status, code, requestId }, 'AI provider call failed');
          throw decision.error;
        }
        logger.info({ purpose, attempt, status, code, requestId, waitMs: decision.waitMs }, 'AI provider call retried');
        retryWaitedMs += decision.waitMs;
        await sleep(decision.waitMs);
      }
    }
  }

  return {
    emulated: config.emulated,
    structured<T>(request: StructuredRequest<T>): Promise<T> {
      return withRetries(request.purpose, async () => {
        const completion = await client.chat.completions.create(
          {
            model: config.textModel,
            messages: [
              { role: 'system', content: request.system },
              { role: 'user', content: request.user },
            ],
            response_format: {
              type: 'json_schema',
              json_schema: { name: request.schemaName, schema: request.jsonSchema, strict: true },
            },
          },
          { timeout: config.textTimeoutMs },
        );
        const choice = completion.choices[0];
        if (choice?.message.refusal) {
          throw new AppError('content_blocked', `The AI model declined to write this: "${choice.message.refusal}"`);
        }
        if (choice?.finish_reason === 'length') throw new MalformedOutput('the answer was cut off (too long)');
        let parsed: unknown;
        try {
          parsed = wellFormed(JSON.parse(choice?.message.content ?? ''));
        } catch {
          throw new MalformedOutput('the answer was not valid JSON');
        }
        const accepted = request.accept(parsed);
        if (!accepted.ok) throw new MalformedOutput(accepted.reason);
        return accepted.value;
      });
    },
    image(request) {
      return withRetries(request.purpose, async () => {
        const result = await client.images.generate(
          {
            model: config.imageModel,
            prompt: request.prompt,
            size: request.size,
            n: 1,
            ...(gptImage
              ? { quality: config.imageQuality, output_format: 'jpeg' as const }
              : { response_format: 'b64_json' as const }),
          },
          { timeout: config.imageTimeoutMs },
        );
        const b64 = result.data?.[0]?.b64_json;
        if (!b64) throw new MalformedOutput('the image answer carried no image');
        return Buffer.from(b64, 'base64');
      });
    },
  };
}

/**
 * The value with every string made well-formed (a lone surrogate becomes U+FFFD): a model that cuts
 * text mid-emoji must not put ill-formed UTF-16 into what is stored or answered, which strict JSON
 * clients cannot read.
 */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key.toWellFormed(), wellFormed(child)]));
  }
  return value;
}

/** The model answered, but not in the shape asked for: worth another try, within the bound. */
class MalformedOutput extends Error {}

function malformed(error: MalformedOutput) {
  return {
    retry: true as const,
    waitMs: 0,
    error: new AppError('provider_error', `The AI model's answer was not usable: ${error.message}`),
  };
}

/** fetch that counts each exchange by endpoint (the path under the base URL, `/chat/completions`) and status. */
function countedFetch(baseUrl: string, metrics: Metrics): typeof fetch {
  const basePath = new URL(baseUrl).pathname.replace(/\/$/, '');
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const endpoint = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    try {
      const response = await fetch(input, init);
      metrics.providerCall('openai', endpoint, response.status);
      return response;
    } catch (error) {
      metrics.providerCall('openai', endpoint, 'network_error');
      throw error;
    }
  };
}
