import { escapeHtml } from './escape-html.js';

/** The emulator's pages: one centred card in Instagram's colours, readable on a phone and a laptop. */
export function page(title: string, main: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>
body{margin:0;background:#fafafa;color:#262626;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:30rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #dbdbdb;border-radius:12px}
@media (max-width:32rem){main{margin:0;border-radius:0;min-height:100vh;box-sizing:border-box}}
h1{font-size:1.3rem;margin:.25rem 0 .75rem}.note{margin:0 0 1rem;padding:.5rem .75rem;background:#fff4e5;border-radius:8px;font-size:.9rem}
code{background:#efefef;padding:.05rem .35rem;border-radius:4px;font-size:.85rem}
fieldset{border:0;padding:0;margin:1rem 0}legend{font-weight:600;margin-bottom:.5rem}
.account{display:flex;gap:.75rem;align-items:center;padding:.6rem .75rem;border:1px solid #dbdbdb;border-radius:10px;margin:.4rem 0;cursor:pointer}
.account small{color:#737373}.buttons{display:flex;gap:.75rem;margin:1.25rem 0 0}
button{flex:1;font:inherit;font-weight:600;padding:.7rem 1rem;border-radius:8px;border:0;background:#0095f6;color:#fff;cursor:pointer}
button.secondary{background:#efefef;color:#262626}
.slides{display:flex;gap:.5rem;overflow-x:auto;margin:.75rem 0}.slides figure{margin:0}.slides img{height:14rem;border-radius:6px}
figcaption{font-size:.8rem;color:#737373;text-align:center}
.posts{list-style:none;padding:0}.posts li{padding:.75rem 0;border-bottom:1px solid #efefef}
</style></head><body><main>${main}</main></body></html>`;
}
