import type { APIInteraction } from 'discord.js';
import { z } from 'zod';

// The fields Postdeck's handlers read from an interaction, by kind; the rest passes untouched.
const id = z.string().min(1);
const user = z.object({ id });
const common = {
  id,
  token: z.string().min(1),
  guild_id: id.optional(),
  member: z.object({ user }).optional(),
  user: user.optional(),
  channel_id: id.optional(),
  channel: z.object({ id }).optional(),
  message: z.object({ id, channel_id: id }).optional(),
};

interface Option {
  type: number;
  name: string;
  value?: unknown;
  options?: Option[] | undefined;
}
const option: z.ZodType<Option> = z.lazy(() =>
  z.object({
    type: z.number().int(),
    name: z.string(),
    value: z.unknown().optional(),
    options: z.array(option).optional(),
  }),
);

// A submitted form's parts: a label holds one input, an action row a list; a text input has its value.
const TEXT_INPUT = 4;
const LABEL = 18;
const ACTION_ROW = 1;
const input = z
  .object({ type: z.number().int(), custom_id: z.string().optional(), value: z.unknown() })
  .refine((each) => each.type !== TEXT_INPUT || typeof each.value === 'string');
const formPart = z
  .object({ type: z.number().int(), component: input.optional(), components: z.array(input).optional() })
  .refine((part) => (part.type !== LABEL || part.component) && (part.type !== ACTION_ROW || part.components));

const interaction = z.discriminatedUnion('type', [
  z.object({ type: z.literal(1) }),
  z.object({
    ...common,
    type: z.literal(2),
    data: z.object({ name: z.string(), type: z.number().int(), options: z.array(option).optional() }),
  }),
  z.object({
    ...common,
    type: z.literal(3),
    data: z.object({ custom_id: z.string(), component_type: z.number().int() }),
  }),
  z.object({ ...common, type: z.literal(4) }),
  z.object({
    ...common,
    type: z.literal(5),
    data: z.object({ custom_id: z.string(), components: z.array(formPart) }),
  }),
]);

/**
 * Whether a signed interaction carries what Postdeck's handlers read, in the types they expect; one
 * that does not (a broken client, a kind Postdeck does not know) is answered without reaching them.
 */
export function isReadableInteraction(value: unknown): value is APIInteraction {
  return interaction.safeParse(value).success;
}
