import { escapeHtml } from '../shared/escape-html.js';

/** Renders a small, dependency-free HTML reference of the OpenAPI document. */
export function renderReferencePage(document: OpenApiLike): string {
  const sections = Object.entries(document.paths ?? {}).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => renderOperation(method, path, op)),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Postdeck API reference</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1f}
h2{font-size:1.1rem;margin-top:2rem}code,pre{font-family:ui-monospace,monospace;font-size:.85rem}
pre{background:#f4f4f6;padding:.75rem;overflow:auto;border-radius:6px}.m{font-weight:700;text-transform:uppercase}
</style></head><body>
<h1>Postdeck API reference</h1>
<p>Every call sends <code>Authorization: Bearer service_sk_…</code>. Errors have the body
<code>{ code, message, details? }</code>; branch on <code>code</code>.
The machine-readable document is at <a href="openapi.json">openapi.json</a>.</p>
${sections.join('\n')}
</body></html>`;
}

/** The part of an OpenAPI document the page reads. */
export interface OpenApiLike {
  paths?: Record<
    string,
    Record<string, { summary?: string; requestBody?: unknown; responses?: unknown; parameters?: unknown }>
  >;
}

function renderOperation(
  method: string,
  path: string,
  op: { summary?: string; requestBody?: unknown; responses?: unknown; parameters?: unknown },
): string {
  const block = (title: string, value: unknown) =>
    value === undefined ? '' : `<h3>${title}</h3><pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;
  return `<section><h2><span class="m">${escapeHtml(method)}</span> <code>${escapeHtml(path)}</code></h2>
<p>${escapeHtml(op.summary ?? '')}</p>${block('Parameters', op.parameters)}${block('Request body', op.requestBody)}${block('Responses', op.responses)}</section>`;
}
