import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';

// A built-in emulator's links ("View in the TikTok emulator" in chat cards, copied post pages)
// carry its port; a new port at each start would kill every one of them. With TIKTOK_EMULATOR_PORT
// unset (0), the first start takes any free port and keeps it in DATA_DIR for the next starts.

/** Where the port of an emulator's last start is kept (`name`: `tiktok`, `instagram`). */
export function keptPortPath(dataDir: string, name = 'tiktok'): string {
  return path.join(dataDir, `${name}-emulator-port.json`);
}

/**
 * Starts the emulator through `start` on the configured port; with none configured, on the port
 * kept from the last start (any free one the first time, or when another program holds it now,
 * which the log says), then keeps the port it got.
 */
export async function startOnKeptPort<T extends { url: string }>(
  dataDir: string,
  configured: number,
  logger: Logger,
  start: (port: number) => Promise<T>,
  emulator: { name: string; label: string; portVariable: string } = {
    name: 'tiktok',
    label: 'TikTok',
    portVariable: 'TIKTOK_EMULATOR_PORT',
  },
): Promise<T> {
  if (configured !== 0) return start(configured);
  const file = keptPortPath(dataDir, emulator.name);
  const kept = readKeptPort(file);
  let started: T;
  try {
    started = await start(kept ?? 0);
  } catch (error) {
    if (kept === undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    logger.warn(
      { port: kept },
      `${emulator.label} emulator: the port of its last start is taken, so it moves and links to its earlier address stop answering (set ${emulator.portVariable} to fix one)`,
    );
    started = await start(0);
  }
  const port = Number(new URL(started.url).port);
  if (port !== kept) writeKeptPort(file, port);
  return started;
}

function readKeptPort(file: string): number | undefined {
  try {
    const { port } = JSON.parse(readFileSync(file, 'utf8')) as { port?: unknown };
    return Number.isInteger(port) && (port as number) > 0 && (port as number) < 65536 ? (port as number) : undefined;
  } catch {
    return undefined;
  }
}

function writeKeptPort(file: string, port: number): void {
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify({ port })}\n`);
  renameSync(`${file}.${process.pid}.tmp`, file);
}
