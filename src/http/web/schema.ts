import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../core/identity/passwords.js';
import { EmailSchema, SignInInputSchema, SignUpInputSchema } from '../../core/identity/schema.js';

/** An empty form field means "not given": browsers always send every field of a form. */
const optionalText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** The sign-in form. `next` is checked separately by `safeNext`. */
export const SignInFormSchema = SignInInputSchema;

/**
 * The sign-up form: core's rules, with messages written for a person at a form. The
 * invitation token rides along in a hidden field when there is one.
 */
export const SignUpFormSchema = SignUpInputSchema.extend({
  name: z.string().trim().min(1, { message: 'Enter your name' }).max(100, { message: 'Use at most 100 characters' }),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, { message: `Use at least ${PASSWORD_MIN_LENGTH} characters` })
    .max(PASSWORD_MAX_LENGTH, { message: `Use at most ${PASSWORD_MAX_LENGTH} characters` }),
  invitation: optionalText(z.string().min(1).max(200)),
});

/** Any form that acts in a workspace names it, so a switch in another tab cannot redirect it. */
export const WorkspaceFormSchema = z.object({
  workspaceId: z.uuid({ message: 'must be a workspace id' }),
});

/** The verification page's decision. The workspace is needed only to approve. */
export const DeviceDecisionFormSchema = z.object({
  code: z.string().trim().min(1, { message: 'Enter the code shown on your device' }).max(64),
  decision: z.enum(['approve', 'deny'], { message: 'Choose Approve or Deny' }),
  workspaceId: optionalText(z.uuid({ message: 'Choose a workspace' })),
});

/** The members page's invite form. */
export const InviteFormSchema = WorkspaceFormSchema.extend({
  email: optionalText(EmailSchema),
  role: z.enum(['owner', 'member'], { message: 'Choose a role' }),
});

/** The id in /keys/:id/revoke and /members/invitations/:id/revoke. */
export const IdParamSchema = z.uuid();
