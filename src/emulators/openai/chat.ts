import { createHash } from 'node:crypto';
import { answerCaptionTask, readCaptionTask, shorten } from './caption-task.js';
import type { Fault } from './faults.js';

interface ChatBody {
  model?: unknown;
  messages?: unknown;
  response_format?: {
    type?: string;
    json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean };
  };
}

/** The text of the last user message (content as a string or as text parts). */
export function lastUserText(body: ChatBody): string {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  const user = messages.filter((message) => message.role === 'user').at(-1);
  if (typeof user?.content === 'string') return user.content;
  if (Array.isArray(user?.content)) {
    return (user.content as { type?: string; text?: string }[]).map((part) => part.text ?? '').join('\n');
  }
  return '';
}

/** Why a strict json_schema breaks OpenAI's rules (every object closed and all its properties required), or null. */
export function strictSchemaProblem(schema: Record<string, unknown>, path = 'schema'): string | null {
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set((schema.required ?? []) as string[]);
    if (schema.additionalProperties !== false)
      return `In context=(), 'additionalProperties' is required to be supplied and to be false.`;
    const missing = Object.keys(properties).find((key) => !required.has(key));
    if (missing)
      return `In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    for (const [key, value] of Object.entries(properties)) {
      const problem = strictSchemaProblem(value, `${path}.${key}`);
      if (problem) return problem;
    }
  }
  if (schema.type === 'array' && schema.items)
    return strictSchemaProblem(schema.items as Record<string, unknown>, `${path}[]`);
  return null;
}

/** The assistant message's content for a request (or the shape a fault gives it). */
export function chatContent(
  body: ChatBody,
  fault: Fault | undefined,
): { content: string | null; refusal: string | null } {
  if (fault?.kind === 'refusal') return { content: null, refusal: "I'm sorry, but I can't help with that request." };
  const text = lastUserText(body);
  const format = body.response_format;
  let answer: unknown;
  if (format?.type === 'json_schema') {
    const task = format.json_schema?.name === 'slide_captions' ? readCaptionTask(text) : undefined;
    const itemProps = ((format.json_schema?.schema?.properties as Record<string, { items?: { properties?: object } }>)
      ?.slides?.items?.properties ?? {}) as Record<string, unknown>;
    answer = task ? answerCaptionTask(task, 'imagePrompt' in itemProps) : fill(format.json_schema?.schema ?? {}, text);
    if (task && fault?.kind === 'schema_violation') (answer as { slides: unknown[] }).slides.pop();
    if (task && fault?.kind === 'caption_text') {
      for (const slide of (answer as { slides: { caption: string }[] }).slides) slide.caption = fault.text ?? '';
    }
  } else if (format?.type === 'json_object') {
    answer = { answer: digest(text).slice(0, 12) };
  } else {
    return { content: `Emulated answer to: ${shorten(text, 200)}`, refusal: null };
  }
  const json = JSON.stringify(answer);
  return {
    content: fault?.kind === 'malformed_json' ? json.slice(0, Math.floor(json.length / 2)) : json,
    refusal: null,
  };
}

/** A deterministic value that conforms to a JSON schema. */
function fill(schema: Record<string, unknown>, seed: string, name = 'value'): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fill(value, seed, key)]));
    }
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 1) }, () =>
        fill((schema.items ?? {}) as Record<string, unknown>, seed, name),
      );
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 0);
    case 'boolean':
      return false;
    default:
      return `emulated ${name} ${digest(seed).slice(0, 8)}`;
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
