import { defineOperation } from '../operations/operation.js';
import { getAccountMetrics } from './account-metrics.js';
import { getPostMetrics, listPostMetrics } from './post-metrics.js';
import {
  AccountMetricsSchema,
  GetAccountMetricsInputSchema,
  ListPostMetricsInputSchema,
  ListTopHooksInputSchema,
  PostMetricsInputSchema,
  PostMetricsListSchema,
  PostMetricsSchema,
  TopHooksSchema,
} from './schema.js';
import { listTopHooks } from './top-hooks.js';

const READ = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;

export const getPostMetricsOperation = defineOperation({
  name: 'get_post_metrics',
  title: 'Get post metrics',
  summary:
    "What a published post did on its network (TikTok or Instagram): its latest views, likes, comments and shares (null before the first snapshot, taken 3 to 5 minutes after publishing), every snapshot so far (hourly for 2 days, 6-hourly to day 7, daily to day 30), and the collection status; a post the network does not count (not public) or no longer returns is 'unavailable' with the reason; Instagram may take up to 48 hours to have numbers",
  input: PostMetricsInputSchema,
  output: PostMetricsSchema,
  result: "the post's counts, series and status",
  errors: ['invalid_request', 'not_found', 'conflict'],
  hints: READ,
  run: (deps, scope, input) => getPostMetrics(deps, scope, input.id),
});

export const listPostMetricsOperation = defineOperation({
  name: 'list_post_metrics',
  title: 'List post metrics',
  summary:
    'The published posts of a period (by publishing time, default the last 30 days, at most 93) with their latest counts, highest first by views, likes, shares or engagement rate, optionally of one account or one network (provider); paged with cursor',
  input: ListPostMetricsInputSchema,
  output: PostMetricsListSchema,
  result: 'one page of posts with their latest counts',
  errors: ['invalid_request', 'not_found'],
  hints: READ,
  run: (deps, scope, input) => listPostMetrics(deps, scope, input),
});

export const listTopHooksOperation = defineOperation({
  name: 'list_top_hooks',
  title: 'List top hooks',
  summary:
    "The workspace's carousel hooks (first-slide captions composited by Postdeck) ranked by their posts' median views at 48 hours, so new posts are not ranked against old ones, with how many posts used each, the text styles and the language; use the best as models for new hooks",
  input: ListTopHooksInputSchema,
  output: TopHooksSchema,
  result: 'the hooks, best first, and how many posts are too young to rank',
  errors: ['invalid_request', 'not_found'],
  hints: READ,
  run: (deps, scope, input) => listTopHooks(deps, scope, input),
});

export const getAccountMetricsOperation = defineOperation({
  name: 'get_account_metrics',
  title: 'Get account metrics',
  summary:
    "A connected account's followers, following, total likes (null on Instagram, which has no such total) and post count over a period (default the last 30 days, at most 93), and its newest totals",
  input: GetAccountMetricsInputSchema,
  output: AccountMetricsSchema,
  result: "the account's newest totals and their series",
  errors: ['invalid_request', 'not_found'],
  hints: READ,
  run: (deps, scope, input) => getAccountMetrics(deps, scope, input),
});

/** The insight operations, in the order the API reference lists them. */
export const insightOperations = [
  getPostMetricsOperation,
  listPostMetricsOperation,
  listTopHooksOperation,
  getAccountMetricsOperation,
] as const;
