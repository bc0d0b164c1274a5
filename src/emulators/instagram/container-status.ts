import { errorStatus } from './graph-error.js';
import type { InstagramEmulatorOptions } from './options.js';
import type { Container, InstagramState } from './state.js';

/** A container's status_code (contract 2.3). */
export type StatusCode = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

/** The status_code and status string of a container now. */
export function statusOf(
  state: InstagramState,
  options: InstagramEmulatorOptions,
  container: Container,
): { code: StatusCode; status: string; subcode?: number } {
  if (container.publishedMediaId) return { code: 'PUBLISHED', status: 'Published: Media has been published.' };
  const now = state.now();
  if (container.expired || now >= container.createdAt + options.containerTtlSec * 1000) {
    return { code: 'EXPIRED', status: 'Expired: Media was not published within 24 hours.' };
  }
  if (container.errorSubcode !== null) {
    return { code: 'ERROR', status: errorStatus(container.errorSubcode), subcode: container.errorSubcode };
  }
  if (container.readyAt === null || now < container.readyAt) {
    return { code: 'IN_PROGRESS', status: 'In Progress: Media is still being processed.' };
  }
  return { code: 'FINISHED', status: 'Finished: Media has been uploaded and it is ready to be published.' };
}
