import type { Finding, KnownFinding } from './findings.js';

/**
 * Findings the CI fuzz lets pass because another branch of issue 23 fixes them. Each entry names its
 * cause and matches only the answers that cause produces, so anything else on the same operation
 * still fails the test. The lead empties this list once those branches are merged (the test prints
 * an entry that matched nothing in its run).
 */

/** Refusal causes (as `causeOf` blanks them) that the protocol branch states in the schemas or stops making. */
const PROTOCOL_REFUSALS: readonly string[] = [
  // Lengths checked after trimming: "\t\n\r" passes minLength 1, then is refused.
  'Too small: expected string to have >=N characters',
  // SlideCompositeRequest / SlideshowGenerateRequest: indexes are unique, not stated.
  'index N is given twice',
  // SlideshowGenerateRequest: exactly one of topic or slides, not stated.
  'give exactly one of topic or slides',
  // SlideshowGenerateRequest: the schedule rule (PostCreate states it with if/then; generate does not).
  'scheduledFor is required when mode is schedule',
  // Stated in words, but refused beside the unstated ones above in the same answer.
  'slideCount applies to the topic path only',
  'slideLength applies to the topic path only',
];

/** Whether a settings object anywhere in the request has a key the database refuses. */
function hasStoreRefusedKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasStoreRefusedKey);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, child]) => /^\$|\.|\u0000/.test(key) || hasStoreRefusedKey(child));
}

/** The body as sent: the JSON value, or a raw body parsed when it is JSON (sent under another type). */
function sentBody(finding: Finding): unknown {
  if (finding.request.raw === undefined) return finding.request.body;
  try {
    return JSON.parse(finding.request.raw) as unknown;
  } catch {
    return undefined;
  }
}

function settingsOf(finding: Finding): unknown {
  const body = sentBody(finding) as { settings?: unknown; arguments?: { settings?: unknown } } | undefined;
  return body?.arguments?.settings ?? body?.settings;
}

function onlyProtocolRefusals(finding: Finding): boolean {
  return (finding.unstated ?? []).every((cause) => PROTOCOL_REFUSALS.includes(cause));
}

/** A caption with nothing to draw: whitespace, zero-width, soft hyphen, BOM, bidi controls, control characters. */
function isInvisible(text: unknown): boolean {
  return typeof text === 'string' && /^[\s\p{Cc}\p{Cf}]*$/u.test(text);
}

function hasInvisibleCaption(finding: Finding): boolean {
  const body = sentBody(finding) as { slides?: unknown; arguments?: { slides?: unknown } } | undefined;
  const slides = body?.arguments?.slides ?? body?.slides;
  return Array.isArray(slides) && slides.some((slide) => isInvisible((slide as { caption?: unknown } | null)?.caption));
}

export const KNOWN_FINDINGS: readonly KnownFinding[] = [
  {
    // Protocol branch: "MCP invalid params" — arguments that are not an object, or a name that is not a
    // string, answer -32603 with a raw zod dump instead of -32602.
    kind: 'jsonrpc_internal',
    surface: 'mcp',
    operation: /./,
    matches(finding) {
      const params = finding.request.body as { name?: unknown; arguments?: unknown } | undefined;
      const args = params?.arguments;
      const argsNotObject = args === null || typeof args !== 'object' || Array.isArray(args);
      return finding.code === 'jsonrpc -32603' && (argsNotObject || typeof params?.name !== 'string');
    },
    why: 'protocol: tools/call with non-object arguments or a non-string name answers -32603, not -32602',
  },
  {
    kind: 'refused_valid',
    surface: 'rest',
    operation: /./,
    matches: onlyProtocolRefusals,
    why: 'protocol: trimming vs lengths; unique indexes, oneOf topic/slides and the schedule rule unstated',
  },
  {
    kind: 'refused_valid',
    surface: 'mcp',
    operation: /./,
    matches: onlyProtocolRefusals,
    why: 'protocol: trimming vs lengths; unique indexes, oneOf topic/slides and the schedule rule unstated',
  },
  {
    // Protocol branch: "PostPublish.settings says unknown keys are refused" (and that they are the
    // posting schema's): its description says neither, so any refusal under settings is unstated.
    kind: 'refused_valid',
    surface: 'rest',
    operation: /^POST \/public\/v1\/posts\/\{id\}\/publish$/,
    matches: (finding) => finding.detailPaths.every((path) => path.startsWith('body.settings')),
    why: 'protocol: PostPublish.settings does not say it is checked against the posting schema',
  },
  {
    kind: 'refused_valid',
    surface: 'mcp',
    operation: /^publish_post$/,
    matches: (finding) => finding.detailPaths.every((path) => path.startsWith('settings')),
    why: 'protocol: publish_post settings does not say it is checked against the posting schema',
  },
  {
    // Protocol branch: "GET /slides/generate/{id} answers an undocumented 400 for long ids (make it 404)".
    kind: 'undocumented_status',
    surface: 'rest',
    operation: /^GET \/public\/v1\/slides\/generate\/\{id\}$/,
    matches: (finding) => finding.status === 400,
    why: 'protocol: a job id over 200 characters answers an undocumented 400',
  },
  {
    // Money branch: "Invisible captions" — a caption with no visible character fails in the renderer.
    kind: 'server_error',
    surface: 'rest',
    operation: /^POST \/public\/v1\/slides\/composite$/,
    matches: (finding) => finding.status === 500 && hasInvisibleCaption(finding),
    why: 'money: composite with an invisible caption (" ", "\\u200b", …) answers 500',
  },
  {
    kind: 'internal_error',
    surface: 'mcp',
    operation: /^composite_slides$/,
    matches: hasInvisibleCaption,
    why: 'money: composite_slides with an invisible caption answers internal_error',
  },
  {
    // Money branch: "Keys the database refuses" — settings with `$`, dotted (or NUL) keys fail the job insert.
    kind: 'server_error',
    surface: 'rest',
    operation: /^POST \/public\/v1\/slides\/generate$/,
    matches: (finding) => finding.status === 500 && hasStoreRefusedKey(settingsOf(finding)),
    why: 'money: generate settings with $, dotted or NUL keys answer 500',
  },
  {
    kind: 'internal_error',
    surface: 'mcp',
    operation: /^generate_slideshow$/,
    matches: (finding) => hasStoreRefusedKey(settingsOf(finding)),
    why: 'money: generate_slideshow settings with $, dotted or NUL keys answer internal_error',
  },
];
