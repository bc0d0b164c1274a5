import OpenAI, { type APIError } from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { width } from '../../src/emulators/openai/caption-task.js';

// The emulator is tested through the official SDK, as Postdeck (or anyone) reaches OpenAI.
let emulator: RunningOpenAiEmulator;
let client: OpenAI;
beforeAll(async () => {
  emulator = await startOpenAiEmulator({ apiKey: 'sk-emulator-test' });
  client = new OpenAI({ apiKey: 'sk-emulator-test', baseURL: emulator.baseUrl, maxRetries: 0 });
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.control.reset());

const CAPTION_SCHEMA = {
  type: 'object',
  properties: {
    caption: { type: 'string' },
    slides: {
      type: 'array',
      items: {
        type: 'object',
        properties: { index: { type: 'integer' }, caption: { type: 'string' }, imagePrompt: { type: 'string' } },
        required: ['index', 'caption', 'imagePrompt'],
        additionalProperties: false,
      },
    },
  },
  required: ['caption', 'slides'],
  additionalProperties: false,
};

function captionTask(topic: string, language: string, slides: number, maxWidth = 120) {
  return client.chat.completions.create({
    model: 'gpt-4.1-mini',
    messages: [
      { role: 'system', content: 'You write TikTok slideshow captions.' },
      {
        role: 'user',
        content: `Topic: ${topic}\nLanguage: ${language}\nSlides: ${slides}\nMax characters per slide: ${maxWidth}\nImage prompts: yes`,
      },
    ],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'slide_captions', strict: true, schema: CAPTION_SCHEMA },
    },
  });
}

type Captions = { caption: string; slides: { index: number; caption: string; imagePrompt: string }[] };
const parse = (completion: OpenAI.ChatCompletion) =>
  JSON.parse(completion.choices[0]?.message.content ?? '') as Captions;

describe('chat completions with a strict JSON schema', () => {
  it.each([
    ['en', /[a-z]/i],
    ['ja', /[\u3040-\u30ff\u4e00-\u9fff]/u],
    ['ko', /[\uac00-\ud7af]/u],
    ['vi', /[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđ]/u],
  ])('writes the slides of a caption task in %s, each within the width asked for', async (language, script) => {
    const completion = await captionTask('cold brew coffee at home', language, 5, 60);
    const answer = parse(completion);
    expect(answer.slides.map((slide) => slide.index)).toEqual([0, 1, 2, 3, 4]);
    for (const slide of answer.slides) {
      expect(slide.caption).toMatch(script);
      expect(width(slide.caption)).toBeLessThanOrEqual(60);
      expect(slide.imagePrompt.length).toBeGreaterThan(20);
    }
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('answers the same input with the same captions, and another topic with others', async () => {
    const first = parse(await captionTask('sourdough starters', 'en', 4));
    const again = parse(await captionTask('sourdough starters', 'en', 4));
    const other = parse(await captionTask('houseplant care', 'en', 4));
    expect(again).toEqual(first);
    expect(other.slides[0]?.caption).not.toBe(first.slides[0]?.caption);
  });

  it('rejects a strict schema that leaves additionalProperties open, as OpenAI does', async () => {
    const error = await client.chat.completions
      .create({
        model: 'gpt-4.1-mini',
        messages: [{ role: 'user', content: 'hello' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'loose',
            strict: true,
            schema: { type: 'object', properties: { a: { type: 'string' } } },
          },
        },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).code).toBe('invalid_json_schema');
  });

  it('sends the request id and rate-limit headers', async () => {
    const { response, request_id } = await captionTask('tea', 'en', 3).withResponse();
    expect(request_id).toMatch(/^req_/);
    expect(response.headers.get('x-request-id')).toBe(request_id);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-limit-tokens')).toMatch(/^\d+$/);
  });
});

describe('image generations', () => {
  it.each([
    ['1024x1024', 'png', 1024, 1024],
    ['1024x1536', 'jpeg', 1024, 1536],
    ['1536x1024', 'webp', 1536, 1024],
  ] as const)('draws %s as %s in b64_json', async (size, format, w, h) => {
    const result = await client.images.generate({
      model: 'gpt-image-1',
      prompt: 'a lighthouse at dusk',
      size,
      quality: 'low',
      output_format: format,
    });
    const bytes = Buffer.from(result.data?.[0]?.b64_json ?? '', 'base64');
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format, width: w, height: h });
    expect(result.size).toBe(size);
  });

  it('draws the same prompt the same and another prompt differently', async () => {
    const draw = async (prompt: string) =>
      (await client.images.generate({ model: 'gpt-image-1', prompt, size: '1024x1024' })).data?.[0]?.b64_json;
    const first = await draw('a red bicycle');
    expect(await draw('a red bicycle')).toBe(first);
    expect(await draw('a blue boat')).not.toBe(first);
  });

  it('answers 400 for response_format on a GPT image model and for an unknown size', async () => {
    const unknownParameter = await client.images
      .generate({ model: 'gpt-image-1', prompt: 'x', response_format: 'b64_json' })
      .catch((caught: unknown) => caught);
    expect(unknownParameter).toBeInstanceOf(OpenAI.BadRequestError);
    expect((unknownParameter as APIError).param).toBe('response_format');
    const badSize = await client.images
      .generate({ model: 'gpt-image-1', prompt: 'x', size: '512x512' })
      .catch((caught: unknown) => caught);
    expect(badSize).toBeInstanceOf(OpenAI.BadRequestError);
    expect((badSize as APIError).param).toBe('size');
  });
});

describe('injected failures', () => {
  const image = (prompt = 'a kite') => client.images.generate({ model: 'gpt-image-1', prompt, size: '1024x1024' });

  it('answers a rate limit as OpenAI does: 429 rate_limit_exceeded with retry-after and a request id', async () => {
    emulator.control.faults.add({ endpoint: 'images', kind: 'rate_limit', times: 1, retryAfterSeconds: 7 });
    const error = (await image().catch((caught: unknown) => caught)) as APIError;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.headers?.get('retry-after')).toBe('7');
    expect(error.requestID).toMatch(/^req_/);
    // Used up: the next request succeeds.
    expect((await image()).data).toHaveLength(1);
  });

  it('answers an exhausted quota with 429 insufficient_quota', async () => {
    emulator.control.faults.add({ endpoint: 'any', kind: 'insufficient_quota', times: 1, retryAfterSeconds: 1 });
    const error = (await image().catch((caught: unknown) => caught)) as APIError;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.code).toBe('insufficient_quota');
    expect(error.type).toBe('insufficient_quota');
  });

  it('answers a server error with 500 and a moderation block with 400 moderation_blocked', async () => {
    emulator.control.faults.add({ endpoint: 'images', kind: 'server_error', times: 1, retryAfterSeconds: 1 });
    expect(await image().catch((caught: unknown) => caught)).toBeInstanceOf(OpenAI.InternalServerError);
    emulator.control.faults.add({ endpoint: 'images', kind: 'moderation_blocked', times: 1, retryAfterSeconds: 1 });
    const blocked = (await image().catch((caught: unknown) => caught)) as APIError;
    expect(blocked).toBeInstanceOf(OpenAI.BadRequestError);
    expect(blocked.code).toBe('moderation_blocked');
    expect(blocked.message).toMatch(/safety system/);
  });

  it('shapes a successful chat answer into a refusal, malformed JSON or an off-schema answer', async () => {
    emulator.control.faults.add({ endpoint: 'chat', kind: 'refusal', times: 1, retryAfterSeconds: 1 });
    const refused = (await captionTask('tea', 'en', 3)).choices[0]?.message;
    expect(refused?.content).toBeNull();
    expect(refused?.refusal).toMatch(/can't help/);
    emulator.control.faults.add({ endpoint: 'chat', kind: 'malformed_json', times: 1, retryAfterSeconds: 1 });
    const malformed = (await captionTask('tea', 'en', 3)).choices[0]?.message.content ?? '';
    expect(() => JSON.parse(malformed) as unknown).toThrow();
    emulator.control.faults.add({ endpoint: 'chat', kind: 'schema_violation', times: 1, retryAfterSeconds: 1 });
    expect(parse(await captionTask('tea', 'en', 3)).slides).toHaveLength(2);
  });

  it('holds a request open on a timeout fault until the SDK gives up', async () => {
    emulator.control.faults.add({ endpoint: 'images', kind: 'timeout', times: 1, retryAfterSeconds: 1 });
    const error = await client.images
      .generate({ model: 'gpt-image-1', prompt: 'slow', size: '1024x1024' }, { timeout: 300 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('hits only the requests whose prompt matches', async () => {
    emulator.control.faults.add({
      endpoint: 'images',
      kind: 'server_error',
      times: 5,
      match: 'cursed',
      retryAfterSeconds: 1,
    });
    expect((await image('a plain kite')).data).toHaveLength(1);
    expect(await image('a cursed kite').catch((caught: unknown) => caught)).toBeInstanceOf(OpenAI.InternalServerError);
    const kites = emulator.control.requests().filter((request) => request.prompt.endsWith('kite'));
    expect(kites.map((request) => request.status)).toEqual([200, 500]);
  });
});

describe('the emulator as a server', () => {
  it('waits the configured latency per request, and requests in flight overlap', async () => {
    // Overlap is read from the emulator's own record (every request started before any finished),
    // not from how long the batch took, which depends on how busy the machine is.
    emulator.control.setLatency({ imagesMs: 1_000 });
    const prompts = Array.from({ length: 4 }, (_, i) => `overlap-${i}`);
    await Promise.all(prompts.map((prompt) => client.images.generate({ model: 'gpt-image-1', prompt })));
    emulator.control.setLatency({ imagesMs: 0 });
    const held = emulator.control.requests().filter((request) => prompts.includes(request.prompt));
    expect(held).toHaveLength(4);
    for (const request of held) expect(request.finishedAt - request.startedAt).toBeGreaterThanOrEqual(995);
    const lastStart = Math.max(...held.map((request) => request.startedAt));
    const firstFinish = Math.min(...held.map((request) => request.finishedAt));
    expect(lastStart).toBeLessThan(firstFinish);
  });

  it('answers 401 without a key or with the wrong key, and 404 for an unknown path', async () => {
    const wrong = new OpenAI({ apiKey: 'sk-wrong-key-123', baseURL: emulator.baseUrl, maxRetries: 0 });
    const denied = (await wrong.models.list().catch((caught: unknown) => caught)) as APIError;
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(denied.code).toBe('invalid_api_key');
    expect(denied.message).not.toContain('sk-wrong-key-123');
    const none = await fetch(`${emulator.baseUrl}/chat/completions`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
    const missing = await client.get('/no/such/path').catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('stops promptly even with a request held open', async () => {
    const local = await startOpenAiEmulator();
    const sdk = new OpenAI({ apiKey: 'k', baseURL: local.baseUrl, maxRetries: 0 });
    local.control.faults.add({ endpoint: 'images', kind: 'timeout', times: 1, retryAfterSeconds: 1 });
    // The SDK would wait ten minutes: only the emulator closing the connection ends this request.
    const hung = sdk.images
      .generate({ model: 'gpt-image-1', prompt: 'x' }, { timeout: 600_000 })
      .catch((e: unknown) => e);
    // The fault is taken when the request arrives: from then on the emulator holds it open.
    await expect.poll(() => local.control.faults.list().length, { timeout: 30_000 }).toBe(0);
    await local.stop();
    const error = await hung;
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(error).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });
});
