import { createHash } from 'node:crypto';
import type { Router } from '@koa/router';
import type { AppState } from '../shared/context.js';

/** The one stylesheet of the pages: system fonts, no images, light and dark. */
const CSS = `
:root{--bg:#f6f7f9;--card:#fff;--text:#1b1d22;--muted:#5c6270;--line:#dfe2e8;--accent:#3b47c4;--accent-text:#fff;
--danger:#b42318;--danger-bg:#fef3f2;--ok:#067647;--ok-bg:#ecfdf3;--info-bg:#eef2ff;--focus:#7c89ff;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#121318;--card:#1b1d24;--text:#e9eaef;--muted:#a2a8b6;--line:#31343e;
--accent:#8f99ff;--accent-text:#0e1030;--danger:#ff8a80;--danger-bg:#3a1715;--ok:#6ce9a6;--ok-bg:#0f2e1f;--info-bg:#1e2340}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--card);padding:.5rem;z-index:1}
.top{background:var(--card);border-bottom:1px solid var(--line)}
.bar{max-width:64rem;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.75rem 1.5rem;align-items:center;justify-content:space-between}
.brand{font-weight:700;font-size:1.15rem;text-decoration:none;color:var(--text);letter-spacing:-.01em}
.account{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
.switcher,.signout{display:flex;gap:.5rem;align-items:center;margin:0}
.switcher label{color:var(--muted);font-size:.9rem}
.sections{max-width:64rem;margin:0 auto;padding:0 1rem}
.sections ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}
.sections a{display:inline-block;padding:.5rem 0;text-decoration:none;color:var(--muted);border-bottom:3px solid transparent}
.sections a[aria-current=page]{color:var(--text);border-bottom-color:var(--accent);font-weight:600}
main{margin:2rem auto;padding:0 1rem}
@media (max-width:40rem){.bar{padding:.5rem 1rem .25rem;gap:.25rem 1rem}.account{gap:.25rem .75rem;font-size:.9rem}
.account .who,.switcher>.muted{display:none}
.switcher label{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.switcher strong{display:inline-block;max-width:11rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
.switcher select{max-width:9rem}.sections ul{gap:0 .75rem}.sections a{padding:.2rem 0;font-size:.9rem}main{margin:1.25rem auto}}
main.wide{max-width:64rem}
main.narrow{max-width:30rem}
main.narrow>*:first-child{margin-top:0}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.5rem;margin:0 0 1.5rem}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 1rem;letter-spacing:-.01em}
h2{font-size:1.15rem;margin:0 0 .75rem}
p{margin:0 0 1rem}
.muted{color:var(--muted)}
.lead{font-size:1.05rem}
.field{margin:0 0 1.1rem}
.field label,.field .label,fieldset legend{display:block;font-weight:600;margin:0 0 .3rem}
.secret{font:.95rem/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere;user-select:all;
background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:.55rem .7rem;margin:0 0 .6rem}
.hint{color:var(--muted);font-size:.9rem;margin:0 0 .35rem}
.field-error{color:var(--danger);font-size:.9rem;font-weight:600;margin:0 0 .35rem}
input[type=text],input[type=email],input[type=password],select,textarea{width:100%;font:inherit;color:inherit;
background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.55rem .7rem}
.switcher select{width:auto;padding:.3rem .5rem}
textarea{resize:vertical;min-height:6rem}
.invalid input,.invalid select,.invalid textarea{border-color:var(--danger)}
input:disabled,select:disabled,textarea:disabled{opacity:.75}
input.code{font:600 1.25rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.08em;text-transform:uppercase}
fieldset{border:0;padding:0;margin:0 0 1.25rem;min-width:0}
fieldset legend{padding:0}
.choice{display:flex;gap:.6rem;align-items:flex-start;padding:.65rem .8rem;border:1px solid var(--line);border-radius:8px;margin:0 0 .5rem;cursor:pointer}
.choice:has(input:checked){border-color:var(--accent);background:var(--info-bg)}
.choice input{margin-top:.3rem}
.choice small{display:block;color:var(--muted)}
button{font:inherit;font-weight:600;border-radius:8px;padding:.6rem 1.1rem;border:1px solid transparent;cursor:pointer}
button.primary{background:var(--accent);color:var(--accent-text)}
button.secondary{background:var(--card);color:var(--text);border-color:var(--line)}
button.danger{background:var(--card);color:var(--danger);border-color:var(--danger)}
button.small{padding:.3rem .7rem;font-size:.9rem}
button.link{background:none;border:0;padding:0;color:var(--accent);text-decoration:underline;font-weight:400}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin-top:1.25rem}
.actions button{flex:1 1 10rem}
.notice{border-radius:8px;padding:.75rem 1rem;margin:0 0 1.25rem}
.notice.error{background:var(--danger-bg);color:var(--danger);font-weight:600}
.notice.success{background:var(--ok-bg);color:var(--ok);font-weight:600}
.notice.info{background:var(--info-bg)}
.codebox{font:700 1.6rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.12em;text-align:center;
padding:.9rem;border:2px dashed var(--line);border-radius:10px;margin:0 0 1rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0 0 1.25rem}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
caption{text-align:left;padding:.6rem .75rem;caption-side:top}
table{width:100%;border-collapse:collapse;background:var(--card);font-size:.95rem}
th,td{text-align:left;padding:.6rem .75rem;border-bottom:1px solid var(--line);vertical-align:middle}
th{color:var(--muted);font-weight:600;font-size:.85rem;text-transform:uppercase;letter-spacing:.03em}
.table{overflow-x:auto;border:1px solid var(--line);border-radius:12px;margin:0 0 1.5rem}
.table tr:last-child td{border-bottom:0}
@media (max-width:40rem){.table thead{display:none}.table table,.table caption,.table tbody,.table tr,.table td{display:block;width:100%}
.table tr{border-bottom:1px solid var(--line);padding:.35rem 0}.table tr:last-child{border-bottom:0}.table td{border-bottom:0;padding:.3rem .75rem}
.table td[data-label]:not([data-label=""])::before{content:attr(data-label);display:block;color:var(--muted);font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.03em}}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
.badge{display:inline-block;white-space:nowrap;border-radius:999px;padding:.05rem .6rem;font-size:.8rem;font-weight:600;background:var(--info-bg)}
.badge.off{background:var(--danger-bg);color:var(--danger)}
.result{text-align:center}
.result .mark{font-size:2.5rem;line-height:1;margin:0 0 .75rem}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:0 1.25rem}
@media (max-width:40rem){.grid2{grid-template-columns:1fr}}
form.inline{display:inline;margin:0}
.notice ul{margin:.4rem 0 0;padding-left:1.2rem;font-weight:400}
.cal-nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;margin:0 0 1.25rem}
.cal-nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.cal-nav a{display:inline-block;padding:.35rem .8rem;border:1px solid var(--line);border-radius:8px;background:var(--card);
color:var(--text);text-decoration:none;font-weight:600;font-size:.9rem}
.cal-nav a[aria-current=page]{background:var(--accent);border-color:var(--accent);color:var(--accent-text)}
h2.range{margin:0 0 .25rem}
.week{list-style:none;margin:0 0 1.5rem;padding:0;display:grid;gap:.75rem}
@media (min-width:60rem){.week{grid-template-columns:repeat(7,minmax(0,1fr));gap:.5rem}}
.day{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:.6rem;min-width:0}
@media (min-width:60rem){.day{padding:.45rem}.week .post{font-size:.85rem;padding:.4rem .45rem}}
.day.today{border-color:var(--accent);box-shadow:inset 0 3px 0 var(--accent)}
.day h3{font-size:.95rem;margin:0 0 .5rem}
.day h3 a{color:var(--text);text-decoration:none}.day h3 a:hover{text-decoration:underline}
.day .empty{font-size:.85rem;margin:0}
.posts{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:minmax(0,1fr);gap:.5rem}
.post{background:var(--bg);border:1px solid var(--line);border-left:4px solid var(--muted);border-radius:8px;
padding:.5rem .6rem;font-size:.9rem;overflow-wrap:anywhere}
.post p{margin:0 0 .25rem}
.post.queue,.post.publishing{border-left-color:var(--accent)}
.post.published{border-left-color:var(--ok)}
.post.error{border-left-color:var(--danger)}
.post-head{display:flex;flex-wrap:wrap;gap:.25rem .5rem;align-items:center;justify-content:space-between}
.post .time{font-weight:700;font-variant-numeric:tabular-nums}
.post-account{font-weight:600}
.week .post-account{font-weight:400;color:var(--muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap;overflow-wrap:normal}
.post-thumb{display:block;width:100%;max-width:12rem;height:auto;border-radius:8px;margin:.35rem 0;background:var(--line)}
.week .post-thumb{max-width:100%}
@media (max-width:59.99rem){.week .post{display:flow-root}.week .post>.post-thumb{float:left;width:4rem;margin:.15rem .75rem .15rem 0}
.day:has(>.empty){display:flex;gap:1rem;align-items:baseline;justify-content:space-between;padding:.45rem .6rem}.day:has(>.empty) h3{margin:0}}
.post .error-text{color:var(--danger)}
.day-posts{margin:0 0 1.5rem}
.day-posts .post{background:var(--card);padding:1rem 1.1rem;font-size:1rem}
.badge.draft{background:var(--line)}
.badge.queue{background:var(--info-bg);color:var(--accent)}
.badge.done{background:var(--ok-bg);color:var(--ok)}
.post-actions{display:grid;gap:.75rem;margin-top:.85rem;padding-top:.85rem;border-top:1px solid var(--line)}
.post-actions form{margin:0;display:flex;flex-wrap:wrap;gap:.4rem .6rem;align-items:center}
.post-actions form.when label{flex:0 0 100%;font-weight:600;font-size:.9rem}
.post-actions details form{margin-top:.5rem}
.post-actions summary{cursor:pointer;color:var(--accent);font-size:.9rem}
input[type=datetime-local]{font:inherit;color:inherit;background:var(--card);border:1px solid var(--line);border-radius:8px;
padding:.3rem .5rem;max-width:100%}
section.analytics{margin:0 0 2rem}
.chart-box{margin:0 0 1rem;max-width:36rem}
svg.chart{display:block;width:100%;height:auto;background:var(--card);border:1px solid var(--line);border-radius:12px}
svg.chart .grid{stroke:var(--line);stroke-width:1}
svg.chart .tick{fill:var(--muted);font:13px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
svg.chart .line{fill:none;stroke:var(--accent);stroke-width:2.5;stroke-linejoin:round}
svg.chart .dot{fill:var(--accent)}
.chart-box figcaption{font-size:.9rem;margin-top:.4rem}
.hooks{margin:0 0 1rem;padding-left:1.4rem;display:grid;gap:1rem}
.hook p{margin:0 0 .25rem;overflow-wrap:anywhere}
.endpoint-url{overflow-wrap:anywhere}
.hook-slides{display:flex;gap:.5rem;flex-wrap:wrap}
.hook-slides .post-thumb{width:6rem;max-width:30%;margin:.25rem 0}
@media (max-width:40rem){.post-counts .table td:not(:first-child){display:inline-block;width:auto;min-width:32%}}
.account-followers h3{font-size:1rem;margin:0 0 .25rem}
.confirm{display:flex;gap:.4rem;align-items:center;font-size:.9rem}
`.trim();

const ETAG = `"${createHash('sha256').update(CSS).digest('base64url').slice(0, 16)}"`;

/** Serves /assets/app.css; cacheable for a day, revalidated by its hash. */
export function registerAssets(router: Router<AppState>): void {
  router.get('/assets/app.css', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('ETag', ETAG);
    ctx.type = 'text/css; charset=utf-8';
    if (ctx.get('if-none-match') === ETAG) {
      ctx.status = 304;
      return;
    }
    ctx.body = CSS;
  });
}
