import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Failure = { code: string; message: string; details?: { path: (string | number)[]; message: string }[] };

function failed(error: Failure): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }, null, 2) }] };
}

/**
 * Streams a file of the agent's machine to the server's REST upload (multipart, read from disk as it
 * is sent), with the same checks as any upload; answers as upload_media does.
 */
export async function uploadLocalFile(
  target: { server: string; apiKey: string },
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const file = String(args.path);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile())
    return failed({
      code: 'invalid_request',
      message: `No file at ${file}`,
      details: [{ path: ['path'], message: 'must name a readable file on this machine' }],
    });
  const form = new FormData();
  for (const field of ['fileName', 'mimeType', 'mediaType', 'folderId'])
    if (typeof args[field] === 'string') form.set(field, args[field]);
  form.set('file', await openAsBlob(file), typeof args.fileName === 'string' ? args.fileName : path.basename(file));
  const response = await fetch(new URL('/public/v1/media', target.server), {
    method: 'POST',
    headers: { authorization: `Bearer ${target.apiKey}` },
    body: form,
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201) {
    const error = body as Failure;
    // REST says where a field travelled (body); over MCP the fields are the arguments themselves.
    const details = error.details?.map((detail) => ({
      ...detail,
      path:
        detail.path[0] === 'body' ? detail.path.slice(1).map((key) => (key === 'file' ? 'path' : key)) : detail.path,
    }));
    return failed({ code: error.code, message: error.message, ...(details ? { details } : {}) });
  }
  return { content: [{ type: 'text', text: JSON.stringify(body, null, 2) }], structuredContent: body };
}
