import type { CoreDeps } from '../../../context.js';
import type { Provider } from '../../port.js';
import type { InstagramHttp } from '../graph.js';
import { instagramPostKind } from '../rules/post-kind.js';

/**
 * Instagram's publishing group. Scaffolding on the Instagram branch only: the container flow replaces this
 * file; the post kinds are the rules' and stay.
 */
export function instagramPublishing(http: InstagramHttp): Provider<CoreDeps>['publishing'] {
  void http;
  const notBuilt = (): never => {
    throw new Error('Instagram publishing is not built yet');
  };
  return {
    postKind: instagramPostKind,
    threadReplies: false,
    init: () => Promise.resolve().then(notBuilt),
    readStatus: () => Promise.resolve().then(notBuilt),
    releaseUrl: notBuilt,
    releaseLinkLabel: notBuilt,
  };
}
