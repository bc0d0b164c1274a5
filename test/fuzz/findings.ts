/** What the fuzzer holds against an answer, most serious first (one kind per answer). */
export type FindingKind =
  | 'server_error' // a 5xx
  | 'jsonrpc_internal' // MCP: JSON-RPC -32603
  | 'internal_error' // an `internal_error` body or tool result
  | 'undocumented_status' // a status the operation does not document
  | 'response_schema' // a body that does not match the documented schema for its status
  | 'refused_valid' // a schema-valid request refused with invalid_request for a rule the schema does not state
  | 'cross_workspace'; // another workspace's id answered with success

export interface Finding {
  kind: FindingKind;
  surface: 'rest' | 'mcp';
  /** `POST /public/v1/posts` or an MCP tool name. */
  operation: string;
  /** Whether the request was valid against its schema. */
  valid: boolean;
  request: { method?: string; path?: string; headers?: Record<string, string>; body?: unknown; raw?: string };
  status?: number;
  /** The error code answered (REST body code, tool result code, or `jsonrpc <n>`). */
  code?: string;
  /** The detail paths of an error answer, numbers shown as `*`. */
  detailPaths: string[];
  /** The detail messages of an error answer, ids and numbers blanked, so a group is one cause. */
  detailMessages: string[];
  /** refused_valid: the causes (as in detailMessages) no stated rule explains. */
  unstated?: string[];
  response: string;
  note: string;
  /** The seed of the single request, to find it again. */
  seed: number;
}

/** What a judge holds against one answer. */
export type Verdict = Pick<Finding, 'kind' | 'note' | 'unstated'>;

/** Findings of one cause: same surface, kind, operation, status, code and detail paths. */
export function groupKey(finding: Finding): string {
  const status = finding.status === undefined ? '' : ` ${finding.status}`;
  const code = finding.code === undefined ? '' : ` ${finding.code}`;
  const unique = [...new Set(finding.detailPaths)];
  const paths = unique.length > 0 ? ` at ${unique.join(', ')}` : '';
  const messages = [...new Set(finding.detailMessages)];
  const why = messages.length > 0 ? `: ${messages.join('; ')}` : '';
  return `${finding.surface} ${finding.kind} ${finding.operation}${status}${code}${paths}${why}`;
}

/** A detail message with its ids, numbers and quoted values blanked: what stays names the cause. */
export function causeOf(message: string): string {
  return message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, '<time>')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

function show(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return shorten(JSON.stringify(value), 600);
  return shorten(JSON.stringify(value), 600);
}

/** One finding, readable: what was sent and what came back. */
export function describeFinding(finding: Finding): string {
  const request = finding.request;
  const lines = [
    `[${finding.kind}] ${finding.operation} (${finding.valid ? 'schema-valid' : 'invalid'} request, seed ${finding.seed}): ${finding.note}`,
    request.method || request.path ? `  ${request.method ?? ''} ${request.path ?? ''}`.trimEnd() : undefined,
    request.headers && Object.keys(request.headers).length > 0 ? `  headers: ${show(request.headers)}` : undefined,
    request.raw !== undefined ? `  raw body: ${show(request.raw)}` : `  body: ${show(request.body)}`,
    `  answer: ${finding.status ?? ''} ${shorten(finding.response, 600)}`,
  ];
  return lines.filter((line) => line !== undefined).join('\n');
}

/** Every group with its count and first example, then the total. */
export function report(findings: readonly Finding[], title: string): string {
  const groups = new Map<string, Finding[]>();
  for (const finding of findings) {
    const key = groupKey(finding);
    groups.set(key, [...(groups.get(key) ?? []), finding]);
  }
  const parts = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, members]) => `${key} — ${members.length}×\n${describeFinding(members[0]!)}`);
  return [`${title}: ${findings.length} finding(s) in ${groups.size} group(s)`, ...parts].join('\n\n');
}

/** The detail paths (numbers as `*`) and causes of an error's `details`, as findings carry them. */
export function detailsOf(details: unknown): Pick<Finding, 'detailPaths' | 'detailMessages'> {
  const list = Array.isArray(details) ? (details as { path?: unknown; message?: unknown }[]) : [];
  return {
    detailPaths: list.map((detail) =>
      (Array.isArray(detail.path) ? detail.path : [])
        .map((part) => (typeof part === 'number' ? '*' : String(part)))
        .join('.'),
    ),
    detailMessages: list.map((detail) => causeOf(String(detail.message))),
  };
}

/** How each operation answered, by request class and status: shows how deep the fuzz got. */
export class Tally {
  private readonly counts = new Map<string, Map<string, number>>();

  add(operation: string, valid: boolean, outcome: string): void {
    const byOutcome = this.counts.get(operation) ?? new Map<string, number>();
    const key = `${valid ? 'valid' : 'invalid'} ${outcome}`;
    byOutcome.set(key, (byOutcome.get(key) ?? 0) + 1);
    this.counts.set(operation, byOutcome);
  }

  toString(): string {
    return [...this.counts.entries()]
      .map(([operation, byOutcome]) => {
        const parts = [...byOutcome.entries()].sort(([a], [b]) => b.localeCompare(a)).map(([key, n]) => `${key}×${n}`);
        return `  ${operation}: ${parts.join(', ')}`;
      })
      .join('\n');
  }
}
