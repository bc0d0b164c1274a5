import { defineOperation } from '../operations/operation.js';
import { listAuditEntries } from './list.js';
import { AuditEntryListSchema, ListAuditEntriesInputSchema } from './schema.js';

export const listAuditEntriesOperation = defineOperation({
  name: 'list_audit_entries',
  title: 'List audit entries',
  summary:
    "The workspace's audit trail, newest first: who created, approved, rejected or deleted a post, and who asked for each one published (the key or person that created or approved it), changed the plan or the AI settings, created or revoked an API key, granted OAuth access, added or deleted a webhook endpoint, created or withdrew an invitation, joined the workspace, connected or disconnected a TikTok or Instagram account (details.provider names the network of post and account entries), or linked, unlinked or changed the settings of a Slack or Discord workspace (its approvals channel, approvers, time zone), when and through which surface (rest, mcp, slack, discord, web, cli, system); a key's changes name the key; for the workspace's owners only; filtered by period (default the last 30 days, at most 93), action and actor; paged with cursor",
  input: ListAuditEntriesInputSchema,
  output: AuditEntryListSchema,
  result: 'one page of audit entries, newest first',
  errors: ['invalid_request', 'forbidden'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => listAuditEntries(deps, scope, input),
});

/** The audit operations. */
export const auditOperations = [listAuditEntriesOperation] as const;
