import { Router } from '@koa/router';
import type { CoreDeps } from '../../core/context.js';
import type { MediaRenditionKind } from '../../core/media/documents.js';
import type { MediaDeps } from '../../core/media/deps.js';
import { openPublicContent, type PublicVariant } from '../../core/media/public-content.js';
import { RENDITION_PATHS } from '../../core/media/renditions.js';
import type { ByteRange } from '../../core/media/store.js';
import type { AppContext, AppState } from '../shared/context.js';

const ID_PATTERN = /^[0-9a-f-]{36}$/;
const TOKEN_PATTERN = /^[0-9a-f]{32}$/;

/**
 * The public media URLs, `/m/<id>/<token>`, `/m/<id>/<token>/preview` and the renditions made for publishing
 * (`/m/<id>/<token>/tiktok.jpg`): no API key (TikTok and browsers fetch them), immutable bytes with a strong
 * ETag, and single byte ranges for players. Never a redirect: TikTok follows none.
 */
export function createMediaServingRouter(deps: CoreDeps, media: MediaDeps): Router<AppState> {
  const router = new Router<AppState>();
  const serve = (variant: PublicVariant) => async (ctx: AppContext & { params: Record<string, string> }) => {
    const { id = '', token = '' } = ctx.params;
    // Malformed links are not found without a database read.
    if (!ID_PATTERN.test(id) || !TOKEN_PATTERN.test(token)) return;
    const content = await openPublicContent(deps, media, id, token, variant);
    ctx.set('ETag', content.etag);
    ctx.set('Accept-Ranges', 'bytes');
    // The bytes behind a URL never change (a new upload gets a new URL), so caches may keep them.
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = content.mimeType;
    if (ctx.get('If-None-Match') === content.etag) {
      ctx.status = 304;
      return;
    }
    const range = parseRange(ctx.get('Range'), content.size, ctx.get('If-Range'), content.etag);
    if (range === 'unsatisfiable') {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${content.size}`);
      ctx.body = { code: 'invalid_request', message: 'The requested range is outside the file' };
      return;
    }
    ctx.status = range ? 206 : 200;
    if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${content.size}`);
    const length = range ? range.end - range.start + 1 : content.size;
    if (ctx.method === 'HEAD') {
      ctx.length = length;
      return;
    }
    ctx.body = await content.open(range);
    ctx.length = length;
  };
  router.get('/m/:id/:token', serve('original'));
  router.get('/m/:id/:token/preview', serve('preview'));
  for (const [kind, file] of Object.entries(RENDITION_PATHS) as [MediaRenditionKind, string][]) {
    router.get(`/m/:id/:token/${file}`, serve(kind));
  }
  return router;
}

/**
 * One `bytes=` range (RFC 9110 14.2): `a-b`, `a-` or `-n`. Several ranges, other units and
 * unparsable headers are ignored (the whole file is sent), as the RFC allows; a stale If-Range too.
 */
export function parseRange(
  header: string,
  size: number,
  ifRange: string,
  etag: string,
): ByteRange | 'unsatisfiable' | undefined {
  if (!header || (ifRange && ifRange !== etag)) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
