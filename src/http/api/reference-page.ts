import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The API reference: Redoc (installed from npm and served by Postdeck itself, so an offline
 * install has it too) rendering `openapi.json` with every schema, example and the auth scheme.
 */
export const REFERENCE_ASSETS = {
  /**
   * Redoc's standalone browser bundle, read once. Its "API docs by Redocly" badge loads a logo from
   * Redocly's CDN; the badge gets an empty inline image instead, so the page asks nothing of the network.
   */
  redoc: readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8').replace(
    'https://cdn.redoc.ly/redoc/logo-mini.svg',
    'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E',
  ),
  /** Starts Redoc on the document; a file of its own, since the page allows no inline script. */
  init: `Redoc.init('openapi.json', {
  hideDownloadButton: false,
  expandResponses: '200,201,202',
  jsonSampleExpandLevel: 3,
  theme: { colors: { primary: { main: '#fe2c55' } }, typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } }
}, document.getElementById('reference'));
`,
};

/** The host page: Redoc draws into #reference; without JavaScript it points at the JSON document. */
export const REFERENCE_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Postdeck API reference</title>
<style>body{margin:0}</style>
</head><body>
<div id="reference"><noscript><p>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</p></noscript></div>
<script src="docs/redoc.standalone.js"></script>
<script src="docs/init.js"></script>
</body></html>`;

/** What the reference page may load: its own scripts and the document; Redoc's styles, worker and images inline. */
export const REFERENCE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
