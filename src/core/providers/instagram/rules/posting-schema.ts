import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { PostingSchemaBody } from '../../contract.js';

/** Instagram's live posting schema of an account (being built on this branch). */
export function instagramPostingSchema(deps: CoreDeps, platform: PlatformDoc): Promise<PostingSchemaBody> {
  void [deps, platform];
  return Promise.reject(new Error('Instagram rules are not built yet'));
}
