import { escapeHtml } from './escape-html.js';

/** The emulator's pages: one centred card, readable on a phone and a laptop. */
export function page(title: string, main: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>
body{margin:0;background:#f1f1f2;color:#161823;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:26rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:14px;box-shadow:0 2px 12px rgba(0,0,0,.08)}
@media (max-width:30rem){main{margin:0;border-radius:0;min-height:100vh;box-sizing:border-box}}
h1{font-size:1.35rem;margin:.25rem 0 .75rem}.note{margin:0 0 1rem;padding:.5rem .75rem;background:#fff4e5;border-radius:8px;font-size:.9rem}
code{background:#f1f1f2;padding:.05rem .35rem;border-radius:4px;font-size:.85rem}
fieldset{border:0;padding:0;margin:1rem 0}legend{font-weight:600;margin-bottom:.5rem}
.account{display:flex;gap:.75rem;align-items:center;padding:.6rem .75rem;border:1px solid #e3e3e4;border-radius:10px;margin:.4rem 0;cursor:pointer}
.account small{color:#6b6c74}.buttons{display:flex;gap:.75rem;margin:1.25rem 0 0}
button{flex:1;font:inherit;font-weight:600;padding:.7rem 1rem;border-radius:8px;border:0;background:#fe2c55;color:#fff;cursor:pointer}
button.secondary{background:#f1f1f2;color:#161823}
.slides{display:flex;gap:.5rem;overflow-x:auto;margin:1rem 0}.slides img{height:16rem;border-radius:8px}
video{width:100%;border-radius:8px;margin:1rem 0}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{color:#6b6c74}dd{margin:0}
.posts{list-style:none;padding:0}.posts li{padding:.5rem 0;border-bottom:1px solid #e3e3e4}
</style></head><body><main>${main}</main></body></html>`;
}
