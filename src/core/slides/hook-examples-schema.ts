import { z } from 'zod';

// The top-hooks option and what the answer says of it (the picking is in hook-examples.ts).

export const UseTopHooksSchema = z
  .boolean()
  .optional()
  .describe(
    "show the model the workspace's best hooks in this language (ranked by views at 48 hours) as examples; omitted: the workspace's AI setting, else false",
  );

export const ExampleHookSchema = z
  .object({
    text: z.string().describe("the hook: a past carousel's first-slide caption"),
    language: z.string(),
    medianViewsAt48h: z.int().describe('the median views at 48 hours of the posts that used it: how it ranks'),
    bestViewsAt48h: z.int(),
    posts: z.int().min(1).describe('how many ranked posts used it'),
  })
  .meta({ id: 'ExampleHook' });
export type ExampleHook = z.infer<typeof ExampleHookSchema>;

export const HookExamplesSchema = z
  .object({
    enabled: z.boolean().describe('whether top hooks were asked for (useTopHooks, else the workspace default)'),
    hooks: z.array(ExampleHookSchema).describe('the hooks the model was shown, best first; empty when none'),
    note: z
      .string()
      .nullable()
      .describe('enabled but no hooks shown: why, in plain words (the captions were written without examples)'),
  })
  .meta({ id: 'HookExamples' });
export type HookExamples = z.infer<typeof HookExamplesSchema>;
