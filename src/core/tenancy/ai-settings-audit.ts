import { createHash } from 'node:crypto';
import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import type { AiSettings } from './documents.js';

/** The long texts: the entry says how long they became, not what they say (they go into every prompt). */
const TEXTS = new Set<keyof AiSettings>(['systemPrompt', 'knowledgeBase']);

/**
 * Records a change of the workspace's AI settings: each setting that really changed, the short ones
 * with their new value, the system prompt and knowledge base by their new length. Saving what is
 * already saved writes nothing. Each change is its own entry (the time and a digest of what).
 */
export async function auditAiSettingsChange(
  deps: CoreDeps,
  scope: Scope,
  before: AiSettings,
  after: AiSettings,
): Promise<void> {
  const details: Record<string, string | number | boolean> = {};
  for (const key of Object.keys(after) as (keyof AiSettings)[]) {
    if (after[key] === before[key]) continue;
    const value = after[key];
    details[key] = TEXTS.has(key) ? `${String(value).length} characters` : value;
  }
  if (Object.keys(details).length === 0) return;
  const digest = createHash('sha256').update(JSON.stringify(details)).digest('hex').slice(0, 8);
  await recordAudit(deps, scope, {
    action: 'ai_settings.changed',
    subject: { type: 'workspace', id: scope.workspaceId },
    details,
    occurrence: `${deps.now().toISOString()}:${digest}`,
  });
}
