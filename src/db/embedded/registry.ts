import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readIfPresent, removeIfUnchanged } from './lock.js';
import { canConnect, isPidAlive } from './proc.js';
import type { EmbeddedKind, RunningDatabase } from './types.js';

/** Content of `<dataDir>/embedded-db.json`. `pid` is the database process (FerretDB or mongod). */
export interface RegistryEntry {
  pid: number;
  ownerPid: number;
  uri: string;
  kind: EmbeddedKind;
  startedAt: string;
}

/** Path of the registry file that lets other processes of this DATA_DIR find the running database. */
export function registryPath(dataDir: string): string {
  return path.join(dataDir, 'embedded-db.json');
}

/** Path of the lock file held while a process starts the embedded database of this DATA_DIR. */
export function startLockPath(dataDir: string): string {
  return path.join(dataDir, 'embedded-db.lock');
}

/** Writes the registry atomically (temp file + rename), readable by the owner only. */
export async function writeRegistry(dataDir: string, entry: RegistryEntry): Promise<void> {
  const file = registryPath(dataDir);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Removes the registry file if it still describes `entry` (a newer one is left alone). */
export async function removeRegistry(dataDir: string, entry: Pick<RegistryEntry, 'pid' | 'uri'>): Promise<void> {
  await removeIfUnchanged(registryPath(dataDir), (text) => {
    const current = parseEntry(text);
    return current === null || (current.pid === entry.pid && current.uri === entry.uri);
  });
}

function parseEntry(text: string): RegistryEntry | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const v = value as Record<string, unknown>;
    if (typeof v.pid !== 'number' || typeof v.uri !== 'string') return null;
    if (v.kind !== 'mongod' && v.kind !== 'ferretdb') return null;
    return {
      pid: v.pid,
      ownerPid: typeof v.ownerPid === 'number' ? v.ownerPid : v.pid,
      uri: v.uri,
      kind: v.kind,
      startedAt: typeof v.startedAt === 'string' ? v.startedAt : '',
    };
  } catch {
    return null;
  }
}

/**
 * Finds the embedded database another process (or this one) runs for `dataDir`: the registry
 * file must exist, its pid be alive and its port accept a TCP connection. A registry that fails
 * these checks is stale and removed. Returns null when nothing is running.
 */
export async function findRunningEmbeddedDatabase(dataDir: string): Promise<RunningDatabase | null> {
  const file = registryPath(dataDir);
  const text = await readIfPresent(file);
  if (text === null) return null;
  const entry = parseEntry(text);
  if (entry !== null && isPidAlive(entry.pid) && (await canConnect(entry.uri))) {
    return { uri: entry.uri, kind: entry.kind };
  }
  // Compare contents so we never delete a registry a new owner wrote while we were checking.
  await removeIfUnchanged(file, (current) => current === text);
  return null;
}
