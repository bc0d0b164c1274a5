import type { Router } from '@koa/router';
import { getUsageOperation } from '../../core/credits/operations.js';
import type { Usage } from '../../core/credits/usage.js';
import type { AppState } from '../shared/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { invokeOperation } from '../../core/operations/invoke.js';
import { setAccountPlan } from '../../core/tenancy/create-tenant.js';
import { isInstallOwner } from '../../core/tenancy/onboarding.js';
import { redirect } from './auth-pages.js';
import { csrfField, hidden, notice } from './forms.js';
import { markup, raw, type SafeHtml } from './html.js';
import { sendPage, when } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage, type SignedInPage } from './page-context.js';
import { WorkspaceFormSchema } from './schema.js';
import { renderTable } from './table.js';
import { workspaceParam } from './workspace.js';

type Pool = Usage['captionCredits'];

const POOLS: readonly { key: 'captionCredits' | 'imageCredits' | 'monthlyPosts'; label: string; spentBy: string }[] = [
  { key: 'captionCredits', label: 'Caption credits', spentBy: 'one per caption call or topic slideshow' },
  { key: 'imageCredits', label: 'Image credits', spentBy: 'one per AI-generated slide image' },
  { key: 'monthlyPosts', label: 'Posts', spentBy: 'one per post queued to publish' },
];

/**
 * What the account has used this month of each pool (the same figures as GET /public/v1/usage):
 * used, allowance, what is left and when it resets. Any member may look.
 */
export function registerUsagePages(router: Router<AppState>, options: WebOptions): void {
  router.get('/usage', async (ctx) => {
    const page = await signedInPage(ctx, options, 'usage', workspaceParam(ctx));
    const usage = await invokeOperation(options.deps, page.scope, getUsageOperation, {});
    const canChange = await isInstallOwner(options.deps, page.user.userId);
    sendPage(ctx, {
      title: 'Usage',
      chrome: page.chrome,
      main: markup`<h1>Usage this month</h1>
        ${ctx.query.notice === 'plan' ? notice(`The account is now on the ${usage.plan} plan.`, 'success') : ''}
        <p class="muted">
          Plan <strong>${usage.plan}</strong>, ${usage.period} (calendar month, UTC). Credits belong to the account and
          are shared by all of its workspaces.
        </p>
        ${usageTable(usage)}
        ${canChange ? planForm(page, Object.keys(options.deps.plans), usage.plan) : ''}`,
    });
  });

  // Only the install's owner moves accounts between plans: on a shared install, a workspace owner
  // must not lift their own caps.
  router.post('/usage/plan', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!workspace.success) throw notFound('Workspace');
    const page = await signedInPage(ctx, options, 'usage', workspace.data.workspaceId);
    if (!(await isInstallOwner(options.deps, page.user.userId))) {
      throw new AppError('forbidden', "Only the install's owner can change an account's plan");
    }
    await setAccountPlan(options.deps, page.scope, form.plan ?? '');
    redirect(ctx, `/usage?ws=${page.workspace.workspaceId}&notice=plan`);
  });
}

function planForm(page: SignedInPage, plans: string[], current: string): SafeHtml {
  return markup`<form method="post" action="/usage/plan" class="when">
    ${csrfField(page.csrf)} ${hidden('workspaceId', page.workspace.workspaceId)}
    <label for="plan">Plan of this account (you own this install)</label>
    <select id="plan" name="plan">
      ${plans.map((plan) => markup`<option value="${plan}" ${plan === current ? raw('selected') : ''}>${plan}</option>`)}
    </select>
    <button type="submit" class="secondary small">Change plan</button>
  </form>`;
}

function usageTable(usage: Usage): SafeHtml {
  return renderTable({
    rows: POOLS.map((pool) => ({ ...pool, figures: usage[pool.key] })),
    columns: [
      { header: 'Pool', cell: (row) => markup`${row.label}<br /><span class="muted">${row.spentBy}</span>` },
      { header: 'Used', cell: (row) => meter(row.label, row.figures) },
      { header: 'Allowance', cell: (row) => count(row.figures.allowance) },
      { header: 'Left', cell: (row) => count(row.figures.remaining) },
      { header: 'Resets', cell: (row) => when(new Date(row.figures.resetsAt)) },
    ],
  });
}

/** Digits grouped as people read them: 1,000,000, not 1000000. */
const NUMBERS = new Intl.NumberFormat('en-US');

function count(n: number): string {
  return NUMBERS.format(n);
}

/** "12 of 30" with a bar; a pool with no allowance shows only its figure. */
function meter(label: string, pool: Pool): SafeHtml {
  const figure = `${count(pool.used)} of ${count(pool.allowance)}`;
  if (pool.allowance === 0) return markup`${figure}`;
  return markup`<meter min="0" max="${String(pool.allowance)}" value="${String(pool.used)}" aria-label="${label} used"></meter>
    ${figure}`;
}
