import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newSecretKey } from './secret-box.js';

/**
 * The token-encryption key: the configured one, else `DATA_DIR/token-encryption.key`, created (0600)
 * on first start so a local install seals tokens without setup. Losing the file means reconnecting
 * every account, which the README says next to the setting.
 */
export function resolveSecretKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  const file = path.join(dataDir, 'token-encryption.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dataDir, { recursive: true });
  const key = newSecretKey();
  // 'wx' fails if another process created the file meanwhile; then read theirs.
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
}
