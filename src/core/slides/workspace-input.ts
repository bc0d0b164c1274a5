import { z } from 'zod';

/** Fields that are workspace settings (spec 1.5), applied automatically and refused in a request. */
const WORKSPACE_ONLY = Object.freeze({
  systemPrompt: 'the system prompt',
  knowledgeBase: 'the knowledge base',
});

/**
 * An input object that refuses unknown fields, and says why when the field is a workspace setting:
 * an agent sending its own system prompt learns it is ignored by design, not by accident.
 */
export function strictSlidesInput<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const settings = issue.keys.filter((key): key is keyof typeof WORKSPACE_ONLY => key in WORKSPACE_ONLY);
      if (settings.length === 0) return `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
      return `${settings.map((key) => WORKSPACE_ONLY[key]).join(' and ')} cannot be sent: the workspace's saved AI settings are applied automatically (an owner changes them on the settings page)`;
    },
  });
}
