import type { CoreDeps } from '../../../context.js';
import type { Provider } from '../../port.js';
import type { InstagramHttp } from '../graph.js';
import { instagramPostKind } from '../rules/post-kind.js';
import { advanceInstagramPublish } from './advance.js';
import { initInstagramPublish } from './init.js';

/** Where Instagram shows profiles to people. */
const INSTAGRAM_WEB = 'https://www.instagram.com';

/**
 * Instagram's publishing group (contract 2): the init makes the containers, `advance` publishes the container
 * once it finished processing and follows it. A post's link is its permalink, answered after the publish;
 * without it (the media id was lost to a doubt) the account's profile. Against the emulator, its host.
 */
export function instagramPublishing(http: InstagramHttp): Provider<CoreDeps>['publishing'] {
  const emulator = http.config.emulator === true;
  const web = emulator ? http.config.authBaseUrl : INSTAGRAM_WEB;
  return {
    postKind: instagramPostKind,
    threadReplies: false,
    init: initInstagramPublish,
    advance: advanceInstagramPublish,
    // A published container never tells its media id, so a later read cannot find a lost one.
    idShownLater: false,
    releaseUrl: (handle) => (handle ? `${web}/${encodeURIComponent(handle)}/` : null),
    releaseLinkLabel: () => (emulator ? 'View in the Instagram emulator' : 'View on Instagram'),
  };
}
