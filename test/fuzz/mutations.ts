import fc from 'fast-check';
import { NASTY_KEYS, anyJson } from './schema-values.js';

/** Values of the wrong kind for almost any field: other types, extremes, operators, huge text. */
const WRONG_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  'x',
  '1',
  [],
  [null],
  {},
  { $gt: '' },
  { 'a.b': 1 },
  'x'.repeat(100_000),
  '😀'.repeat(20_000),
];

type Path = (string | number)[];

/** Every path into objects and arrays of `value` (the root included as `[]`). */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...prefix, index], out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], out);
  }
  return out;
}

function clone(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

function setAt(
  root: unknown,
  path: Path,
  change: (parent: Record<string | number, unknown>, key: string | number) => void,
): unknown {
  if (path.length === 0) return root;
  const copy = clone(root);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  change(node, path[path.length - 1]!);
  return copy;
}

/** A deeply nested object: a parser or validator that recurses without a limit falls over. */
function deepNest(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i += 1) value = { a: value };
  return value;
}

/**
 * Invalid variants of a valid value: a field replaced by a wrong kind of value, a key removed, a
 * key added (operators, dotted, prototype names), the whole value replaced. Some land valid by
 * chance; the caller sorts them with the schema's validator.
 */
export function mutationsOf(valid: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(valid);
  const objectPaths = paths.filter((path) => {
    const node = path.reduce<unknown>((at, key) => (at as Record<string | number, unknown>)[key], valid);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
  const keyPaths = paths.filter((path) => path.length > 0);
  const replaced = fc
    .tuple(fc.constantFrom(...paths), fc.constantFrom(...WRONG_VALUES))
    .map(([path, wrong]) =>
      path.length === 0 ? wrong : setAt(valid, path, (parent, key) => void (parent[key] = wrong)),
    );
  const arbitraries: fc.Arbitrary<unknown>[] = [replaced, fc.constantFrom(...WRONG_VALUES, deepNest(500))];
  if (keyPaths.length > 0) {
    arbitraries.push(
      fc.constantFrom(...keyPaths).map((path) =>
        setAt(valid, path, (parent, key) => {
          if (Array.isArray(parent)) parent.splice(Number(key), 1);
          else delete parent[key];
        }),
      ),
    );
  }
  if (objectPaths.length > 0) {
    arbitraries.push(
      fc
        .tuple(
          fc.constantFrom(...objectPaths),
          fc.oneof(fc.constantFrom(...NASTY_KEYS), fc.string({ maxLength: 10 })),
          anyJson,
        )
        .map(([path, key, extra]) => {
          const copy = clone(valid) as Record<string, unknown>;
          const node = path.reduce<Record<string | number, unknown>>(
            (at, part) => at[part] as Record<string | number, unknown>,
            copy,
          );
          Object.defineProperty(node, key, { value: extra, enumerable: true, configurable: true, writable: true });
          return copy;
        }),
    );
  }
  return fc.oneof(...arbitraries);
}

/** Bodies that are not the JSON they claim to be. */
export const MALFORMED_BODIES: readonly string[] = [
  '',
  '{',
  '{"a":',
  '[1,2',
  '{"a":1}}',
  "{'a':1}",
  '{"a":1,}',
  'nul',
  'NaN',
  '\u0000',
  '"\\ud800"',
  '{"a":"\\u0000"}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  '\ufeff{}',
];
