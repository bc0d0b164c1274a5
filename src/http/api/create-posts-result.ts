import type { IssueDetail } from '../../core/errors.js';
import type { CreatePostsResult } from '../../core/posts/schema.js';

/** A platform that got no post carries its issues in the 201 body: their paths say `body` too. */
export function relocateCreatePostsResult(
  result: CreatePostsResult,
  relocate: (details: readonly IssueDetail[]) => IssueDetail[],
): CreatePostsResult {
  return {
    results: result.results.map((entry) =>
      entry.status === 'failed' && entry.error.details
        ? { ...entry, error: { ...entry.error, details: relocate(entry.error.details) } }
        : entry,
    ),
  };
}
