import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.js';
import { trimmedText } from '../text-schema.js';

/** Emails are compared trimmed and lower-cased, so `A@x.io ` and `a@x.io` are one account. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** An email address, normalized; adapters validate with this so all of them agree. */
export const EmailSchema = z
  .string()
  .max(254)
  .transform(normalizeEmail)
  .pipe(z.email({ error: 'must be an email address' }));

export const PasswordSchema = z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH);

/** A person's display name. */
export const DisplayNameSchema = trimmedText(100);

/** An opaque secret someone was handed (invitation link token); only its shape is checked. */
export const SecretTokenSchema = z.string().min(1).max(200);

/** Sign-up: the first user of an install, an invited person, or anyone when sign-up is open. */
export const SignUpInputSchema = z.object({
  email: EmailSchema,
  password: PasswordSchema,
  name: DisplayNameSchema,
  invitation: SecretTokenSchema.optional().describe('the token from an invitation link'),
});
export type SignUpInput = z.infer<typeof SignUpInputSchema>;

/** Sign-in with email and password. The password is only length-capped: rules may change. */
export const SignInInputSchema = z.object({
  email: EmailSchema,
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
export type SignInInput = z.infer<typeof SignInInputSchema>;

/** What an owner fills in to invite someone. */
export const InvitationInputSchema = z.object({
  email: EmailSchema.optional().describe('when given, only this address may accept'),
  role: z.enum(['owner', 'member']).default('member'),
});
export type InvitationInput = z.infer<typeof InvitationInputSchema>;
