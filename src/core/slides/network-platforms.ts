import type { PlatformDoc } from '../platforms/documents.js';

/** The platforms of one network a set of slides is drawn for (stored on a generation job as they are). */
export interface NetworkPlatforms {
  /** The platforms' `provider` value. */
  provider: PlatformDoc['provider'];
  platformIds: string[];
}
