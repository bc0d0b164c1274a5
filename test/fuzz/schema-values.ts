import fc from 'fast-check';

/** A JSON Schema as OpenAPI 3.1 and MCP's tools/list carry it. */
export type JsonSchema = { [key: string]: unknown };

/**
 * What generation needs beyond the schema: the document `$ref`s point into, and values for ids
 * (a random uuid almost never names anything, so ids come from what exists, mixed with random ones).
 */
export interface GenerationContext {
  root: object;
  /** Ids for a property or parameter name (`platformIds`, `mediaId`, path `id`), or undefined to use the schema. */
  idsFor(name: string): fc.Arbitrary<string> | undefined;
  /** Extra valid values for a property, beside the schema's (e.g. settings a platform accepts). */
  hintFor(name: string): fc.Arbitrary<unknown> | undefined;
}

/** Resolves a local `$ref` (`#/components/schemas/Post`, `#/$defs/Slide`) against the document. */
export function resolveRef(root: object, ref: string): JsonSchema {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node as JsonSchema;
}

/** The schema with `$ref`s replaced by what they name, recursively (for validators that see one schema). */
export function dereference(root: object, schema: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((each) => dereference(root, each, seen));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as JsonSchema).$ref;
  if (typeof ref === 'string') {
    // A cycle is cut to "anything": the validator then checks the outer levels only.
    if (seen.includes(ref)) return {};
    const { $ref: _ref, ...rest } = schema as JsonSchema;
    return dereference(root, { ...resolveRef(root, ref), ...rest }, [...seen, ref]);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, dereference(root, value, seen)] as const),
  );
}

/**
 * Strings that pass a naive length check yet are hard to handle: invisible, whitespace-only,
 * control characters, bidi overrides, lone surrogates, astral characters, markup and injection.
 */
export const NASTY_STRINGS: readonly string[] = [
  ' ',
  '\u200b',
  '\u00ad',
  '\ufeff',
  '\u202e',
  '\u0000',
  '\u000b',
  '\t\n\r',
  '\u2028\u2029',
  '\ud83d',
  '\ude00x',
  '😀',
  '👩‍👩‍👧‍👦',
  'e\u0301\u0301\u0301',
  'ﷺ',
  '𒐫',
  '<script>alert(1)</script>',
  '{"$gt":""}',
  '$gt',
  'a.b',
  '../../etc/passwd',
  '%00',
  '\\',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  'true',
];

function codePoints(text: string): number {
  return [...text].length;
}

/** A string of `min`–`max` code points (JSON Schema counts code points), biased to edges and nasty text. */
function text(min: number, max: number | undefined): fc.Arbitrary<string> {
  const cap = Math.min(max ?? 5_000, 5_000);
  const short = Math.min(cap, Math.max(min, 40));
  const fits = (value: string): boolean => {
    const n = codePoints(value);
    return n >= min && n <= (max ?? Infinity);
  };
  const edges = [
    'x'.repeat(min),
    'x'.repeat(cap),
    'é'.repeat(cap),
    '😀'.repeat(cap),
    `a${' '.repeat(Math.max(0, cap - 1))}`,
    ` ${'b'.repeat(Math.max(0, min - 1))}`,
    ...NASTY_STRINGS,
    ...NASTY_STRINGS.map((nasty) => `hello ${nasty} world`),
  ].filter(fits);
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: short }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: short }).filter(fits) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: short }) },
    ...(edges.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...edges) }] : []),
  );
}

const DATE_TIMES = fc.oneof(
  fc
    .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  fc.constantFrom(
    new Date(Date.now() + 3_600_000).toISOString(),
    new Date(Date.now() + 86_400_000 * 30).toISOString(),
    new Date(Date.now() - 3_600_000).toISOString(),
    '2030-01-01T00:00:00+05:30',
    '2030-01-01T00:00:00.123456Z',
    '9999-12-31T23:59:59Z',
    '0001-01-01T00:00:00Z',
  ),
);

function stringOf(schema: JsonSchema, name: string, ctx: GenerationContext): fc.Arbitrary<unknown> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const fits = (value: string): boolean => codePoints(value) >= min && codePoints(value) <= (max ?? Infinity);
  switch (schema.format) {
    case 'uuid':
      return ctx.idsFor(name) ?? fc.uuid();
    case 'date-time':
      return DATE_TIMES;
    case 'uri':
      return fc.oneof(fc.webUrl(), fc.constantFrom('https://example.com/a?b=c#d', 'http://127.0.0.1:9/x'));
    default:
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(fits);
  }
  const ids = ctx.idsFor(name);
  if (ids) return fc.oneof(ids.filter(fits), text(min, max));
  return text(min, max);
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const lower = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const upper = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const exclusiveLower = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const exclusiveUpper = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
  if (integer) {
    const min = lower ?? (exclusiveLower === undefined ? -(2 ** 31) : Math.floor(exclusiveLower) + 1);
    const max = upper ?? (exclusiveUpper === undefined ? 2 ** 31 : Math.ceil(exclusiveUpper) - 1);
    const edges = [min, max, 0, 1, -1, Number.MAX_SAFE_INTEGER].filter((n) => n >= min && n <= max);
    return fc.oneof(fc.integer({ min, max }), fc.constantFrom(...edges));
  }
  const min = lower ?? exclusiveLower ?? -1e12;
  const max = upper ?? exclusiveUpper ?? 1e12;
  return fc
    .oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max, 0.5))
    .filter(
      (n) =>
        n >= min &&
        n <= max &&
        (exclusiveLower === undefined || n > exclusiveLower) &&
        (exclusiveUpper === undefined || n < exclusiveUpper),
    );
}

/** Keys a store or a parser may choke on: operators, paths, prototype names, the empty key. */
export const NASTY_KEYS: readonly string[] = [
  '$gt',
  '$where',
  'a.b',
  '.',
  '__proto__',
  'constructor',
  '',
  '\u0000',
  '😀',
];

/** Any JSON value, small, with nasty keys and strings among the ordinary ones. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text(0, 30),
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .array(fc.tuple(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...NASTY_KEYS)), tie('value')), {
        maxLength: 3,
      })
      .map((entries) => Object.fromEntries(entries)),
  ),
})).value;

function objectOf(schema: JsonSchema, ctx: GenerationContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const model = Object.fromEntries(
    Object.entries(properties).map(([key, child]) => [key, valueOf(child, ctx, key, depth + 1)] as const),
  );
  const declared = fc.record(model, { requiredKeys: Object.keys(model).filter((key) => required.has(key)) });
  const extra = schema.additionalProperties;
  if (extra === false || (Object.keys(properties).length > 0 && extra === undefined)) return declared;
  const extraValue =
    extra && typeof extra === 'object' && Object.keys(extra).length > 0
      ? valueOf(extra as JsonSchema, ctx, '', depth + 1)
      : anyJson;
  const extras = fc
    .array(fc.tuple(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...NASTY_KEYS)), extraValue), {
      maxLength: 4,
    })
    .map((entries) => entries.filter(([key]) => !(key in properties)));
  return fc.tuple(declared, extras).map(([fixed, more]) => Object.assign(Object.fromEntries(more), fixed));
}

/** Values valid for `schema` (mostly: `oneOf` and `if`/`then` are left to the validator that sorts them). */
export function valueOf(
  schema: JsonSchema | boolean,
  ctx: GenerationContext,
  name = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  if (schema === true || schema === false || schema === undefined) return anyJson;
  if (typeof schema.$ref === 'string') {
    const { $ref, ...rest } = schema;
    return valueOf({ ...resolveRef(ctx.root, $ref), ...rest }, ctx, name, depth);
  }
  const hint = depth > 0 || name ? ctx.hintFor(name) : undefined;
  const plain = plainValueOf(schema, ctx, name, depth);
  return hint ? fc.oneof(plain, hint) : plain;
}

function plainValueOf(schema: JsonSchema, ctx: GenerationContext, name: string, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices)
    return fc.oneof(...choices.map((choice) => valueOf({ ...withoutChoices(schema), ...choice }, ctx, name, depth)));
  if (Array.isArray(schema.allOf)) {
    const merged = (schema.allOf as JsonSchema[]).reduce<JsonSchema>(
      (all, part) => ({
        ...all,
        ...part,
        properties: { ...(all.properties as object), ...(part.properties as object) },
        required: [...((all.required as string[]) ?? []), ...((part.required as string[]) ?? [])],
      }),
      { ...schema, allOf: undefined },
    );
    return valueOf(merged, ctx, name, depth);
  }
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((each) => valueOf({ ...schema, type: each }, ctx, name, depth)));
  if (depth > 8) return fc.constant(type === 'object' ? {} : type === 'array' ? [] : null);
  switch (type) {
    case 'string':
      return stringOf(schema, name, ctx);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : minLength + 4;
      const item = valueOf((schema.items ?? {}) as JsonSchema, ctx, singular(name), depth + 1);
      // uniqueItems: compared as JSON, as a validator compares them.
      // Items with an `index` (slides) mostly get distinct ones: a duplicate is refused at once,
      // which would hide what lies deeper.
      const indexed = ((schema.items as JsonSchema | undefined)?.properties as JsonSchema | undefined)?.index;
      const list = (min: number, max: number): fc.Arbitrary<unknown[]> => {
        if (schema.uniqueItems === true) {
          return fc.uniqueArray(item, { minLength: min, maxLength: max, selector: (value) => JSON.stringify(value) });
        }
        const plain = fc.array(item, { minLength: min, maxLength: max });
        // A full list draws from few indexes: left plain, so generation never has to search.
        if (!indexed || min === max) return plain;
        const byIndex = fc.uniqueArray(item, {
          minLength: min,
          maxLength: max,
          selector: (value) => (value as { index?: unknown } | null)?.index,
        });
        return fc.oneof({ weight: 3, arbitrary: byIndex }, { weight: 1, arbitrary: plain });
      };
      const arrays = list(minLength, Math.min(maxItems, minLength + 4));
      // The longest list allowed, now and then (bounded so one request stays small).
      return maxItems <= 40 ? fc.oneof({ weight: 5, arbitrary: arrays }, list(maxItems, maxItems)) : arrays;
    }
    case 'object':
      return objectOf(schema, ctx, depth);
    default:
      return schema.properties ? objectOf(schema, ctx, depth) : anyJson;
  }
}

function withoutChoices(schema: JsonSchema): JsonSchema {
  const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = schema;
  return rest;
}

/** `platformIds` → `platformId`, so an array's items get the ids its name promises. */
function singular(name: string): string {
  return name.endsWith('s') ? name.slice(0, -1) : name;
}
