import { resolveRef, type JsonSchema } from './schema-values.js';

/**
 * Rules a schema states in words where JSON Schema has no keyword for them (a rule that needs the
 * database or the clock, or another document). A schema-valid request refused at one of these paths
 * is refused for a stated rule, so not a finding; each entry holds only while the schema's own
 * description at that path still says it (checked on every use, so a rewording shows up).
 */
interface StatedRule {
  /** The refused field: a body property, a query parameter or a tool argument. */
  field: string;
  /** Words of the description at that property that state the rule. */
  says: string;
}

const STATED_RULES: readonly StatedRule[] = [
  // Settings are the platform's: their schema is GET /platforms/{id}/schema, per account.
  { field: 'settings', says: "see the platform's posting schema" },
  // Content length limits are per platform, in its posting schema.
  { field: 'content', says: "the platform's posting schema" },
  // The clock: a schedule must lie ahead.
  { field: 'scheduledFor', says: 'in the future' },
  // Media count and kind depend on what the ids name, and on each platform's network.
  { field: 'mediaIds', says: "as each platform's posting schema allows" },
  // TikTok has no replies.
  { field: 'threadReplies', says: 'TikTok supports none' },
  // Cursors are the server's own.
  { field: 'cursor', says: 'nextCursor of the previous page' },
  // A webhook's host: DNS and the address ranges are the world's state, not the schema's.
  { field: 'url', says: 'its host must resolve, and one resolving to a loopback, private' },
  // A listing's window is bounded.
  { field: 'endDate', says: 'after startDate and at most 93 days after it' },
  // Slides: each index once (also the `x-unique-by: index` extension).
  { field: 'slides', says: 'each index at most once' },
  // Generation: the topic path's options.
  { field: 'slideCount', says: 'topic path only' },
  { field: 'slideLength', says: 'topic path only' },
];

/** The schema of `field` in an object schema (`$ref`s followed), if it has one. */
export function propertySchema(root: object, schema: JsonSchema, field: string): JsonSchema | undefined {
  let node: JsonSchema = schema;
  if (typeof node.$ref === 'string') node = resolveRef(root, node.$ref);
  const properties = node.properties as Record<string, JsonSchema> | undefined;
  const property = properties?.[field];
  if (!property) return undefined;
  return typeof property.$ref === 'string' ? { ...resolveRef(root, property.$ref), ...property } : property;
}

/**
 * The refusals of a schema-valid request that no rule of its schema explains: `describe` gives the
 * schema description of a refused field (undefined when it has none).
 */
export function unstatedRefusals<T extends { field: string; message: string }>(
  refused: readonly T[],
  describe: (field: string) => string | undefined,
): T[] {
  // A refusal that names no field is unexplained as a whole.
  if (refused.length === 0) return [{ field: '', message: '(no details)' } as T];
  return refused.filter(({ field, message }) => !stated(field, message, describe));
}

function stated(field: string, message: string, describe: (field: string) => string | undefined): boolean {
  // An id that names nothing here is the state of the workspace (a 404 alone; one line of a
  // combined refusal when several platforms fail for different reasons).
  if (/\bnot found\b/i.test(message)) return true;
  const description = describe(field);
  return (
    typeof description === 'string' &&
    STATED_RULES.some((rule) => rule.field === field && description.includes(rule.says))
  );
}
