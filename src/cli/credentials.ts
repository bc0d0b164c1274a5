import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** What `postdeck login` keeps: the server it logged in to and the key it received. */
const CredentialsSchema = z.object({
  server: z.url(),
  apiKey: z.string().startsWith('service_sk_'),
  workspaceId: z.string(),
  workspaceName: z.string(),
  savedAt: z.string(),
});
export type Credentials = z.infer<typeof CredentialsSchema>;

/** The credentials file inside the user's config directory. */
export function credentialsPath(configDir: string): string {
  return path.join(configDir, 'credentials.json');
}

/** Stores credentials readable by the user only (0600, in a 0700 directory). */
export async function saveCredentials(configDir: string, credentials: Credentials): Promise<void> {
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  const file = credentialsPath(configDir);
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only when it creates the file; an older file keeps its mode otherwise.
  await chmod(file, 0o600);
}

/** The stored credentials, or null when not logged in (or the file is unreadable). */
export async function loadCredentials(configDir: string): Promise<Credentials | null> {
  try {
    const parsed = CredentialsSchema.safeParse(JSON.parse(await readFile(credentialsPath(configDir), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Forgets the stored credentials. */
export async function removeCredentials(configDir: string): Promise<void> {
  await rm(credentialsPath(configDir), { force: true });
}
