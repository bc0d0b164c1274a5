import { createHash } from 'node:crypto';

/**
 * A stable UUID (version 8 layout) from a name: the same name always gives the same id. Work that may
 * run twice (a job run again, a keyed request executed again after its process died) names what it
 * creates this way, so the second run's insert is refused and finds the first one's document.
 */
export function derivedUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
