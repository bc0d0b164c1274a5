import { createHash } from 'node:crypto';
import type { Router } from '@koa/router';
import type { AppState } from '../shared/context.js';

/**
 * The pages' one script: Copy buttons. A button `data-copy="<id>"` copies the text of the element
 * with that id; it stays hidden unless this script runs, so no page shows a button that does
 * nothing. The clipboard API needs a secure context (https or localhost); elsewhere the text is
 * selected and copied the older way, or left selected with a word on how to copy it.
 */
const SCRIPT = `
'use strict';
for (const button of document.querySelectorAll('button[data-copy]')) button.hidden = false;
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  const source = button && document.getElementById(button.dataset.copy);
  if (!source) return;
  const label = (button.dataset.label ??= button.textContent.trim());
  const text = source.textContent.trim();
  const say = (words) => {
    button.textContent = words;
    clearTimeout(button.copyTimer);
    button.copyTimer = setTimeout(() => { button.textContent = label; }, 3000);
  };
  const selectText = () => {
    const range = document.createRange();
    range.selectNodeContents(source);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => say('Copied'), () => { selectText(); say('Selected: press Ctrl+C'); });
  } else {
    selectText();
    say(document.execCommand('copy') ? 'Copied' : 'Selected: press Ctrl+C');
  }
});
`.trim();

/** Where pages load it from; a page with a Copy button adds `<script src>` for this path. */
export const COPY_SCRIPT_PATH = '/assets/copy.js';

const ETAG = `"${createHash('sha256').update(SCRIPT).digest('base64url').slice(0, 16)}"`;

/** Serves the script, cacheable for a day and revalidated by its hash, like the stylesheet. */
export function registerCopyScript(router: Router<AppState>): void {
  router.get(COPY_SCRIPT_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('ETag', ETAG);
    ctx.type = 'text/javascript; charset=utf-8';
    if (ctx.get('if-none-match') === ETAG) {
      ctx.status = 304;
      return;
    }
    ctx.body = SCRIPT;
  });
}
