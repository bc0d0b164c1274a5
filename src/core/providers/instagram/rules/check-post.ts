import type { CoreDeps } from '../../../context.js';
import type { IssueDetail } from '../../../errors.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { LoadedMedia, PostFields, ProviderCaller } from '../../port.js';

/** Checks a post against Instagram's rules (being built on this branch). */
export function checkInstagramPost(
  deps: CoreDeps,
  platform: PlatformDoc,
  fields: PostFields,
  loaded: LoadedMedia,
  caller: ProviderCaller,
): Promise<{ issues: IssueDetail[]; settings: Record<string, unknown> }> {
  void [deps, platform, fields, loaded, caller];
  return Promise.reject(new Error('Instagram rules are not built yet'));
}
