import type { CoreDeps } from '../../src/core/context.js';
import { INSTAGRAM_FRAMES } from '../../src/core/providers/instagram/frames.js';
import type { Provider } from '../../src/core/providers/port.js';
import { creatorTenant, type AiStack } from './ai.js';
import { buildPlatform } from './factories.js';

// A second network for the slides tests: a provider object of the tests' own over the port (its rules
// accept any photo post), drawing in the frame the Instagram provider carries (1080x1350).
const unused = () => {
  throw new Error('not used by the slides tests');
};

export const carouselNetwork: Provider<CoreDeps> = {
  id: 'instagram',
  name: 'Instagram',
  connect: {
    start: unused,
    complete: unused,
    consentOrigin: 'http://127.0.0.1:9',
    emulated: true,
    setupWarning: () => null,
  },
  accounts: {
    analyticsAccess: () => ({ granted: false, missingScopes: [], reason: null, fix: null }),
    disconnect: unused,
    underLease: unused,
  },
  rules: {
    checkPost: (_deps, _platform, fields) =>
      Promise.resolve({ issues: [], settings: fields.settings as Record<string, unknown> }),
    postingSchema: unused,
  },
  publishing: {
    postKind: (media) => (media.every((each) => each.mediaType === 'image') ? 'photo' : null),
    threadReplies: false,
    init: unused,
    advance: unused,
    idShownLater: false,
    releaseUrl: () => null,
    releaseLinkLabel: () => 'View on Instagram',
  },
  insights: {
    postsScope: 'instagram_business_manage_insights',
    postsPerRead: 1,
    totalsScope: 'instagram_business_manage_insights',
    readPostCounts: unused,
    readAccountCounts: unused,
  },
  frames: INSTAGRAM_FRAMES,
};

/** A tenant with a TikTok account (through the emulator) and a carousel-network account. */
export async function twoNetworks(stack: AiStack) {
  const { tenant, platform } = await creatorTenant(stack);
  const carousel = await buildPlatform(stack.t.deps, tenant.workspaceId, {
    provider: 'instagram' as never,
    displayHandle: 'carousel.maker',
  });
  return { tenant, tiktok: platform, carousel };
}

/** A composited slide and one network's slides, as composite answers them. */
export type Slide = { index: number; mediaId: string; publicUrl: string; previewUrl: string };
export type Framed = { provider: string; platformIds: string[]; width: number; height: number; slides: Slide[] };

/** A short slideshow: a hook and two body slides of different lengths. */
export const CAPTIONS = [
  'Five mornings that changed how I work',
  'Wake up before the phone does: no screen for the first hour, a glass of water and ten minutes outside',
  'Write the one thing that matters today on paper, then do it first',
];
