import type { CoreDeps } from '../context.js';
import type { DomainEvent } from '../events/documents.js';
import { publicUrlOf } from '../media/view.js';
import type { PlatformDoc } from '../platforms/documents.js';
import type { PostDoc } from '../posts/documents.js';
import { SETTING_KEYS_BY_PROVIDER } from '../providers/contract.js';
import type { ChatCardDoc } from './documents.js';
import type { ApprovalCard, CardStatus } from './gateway.js';

const PRIVACY_WORDS: Record<string, string> = {
  PUBLIC_TO_EVERYONE: 'Everyone',
  MUTUAL_FOLLOW_FRIENDS: 'Friends',
  FOLLOWER_OF_CREATOR: 'Followers',
  SELF_ONLY: 'Only the creator',
};

/** The card of `postId` as it stands now (a post deleted since shows as rejected or gone). */
export async function buildCard(
  deps: CoreDeps,
  postId: string,
  card: Pick<ChatCardDoc, 'workspaceId' | 'author' | 'editedContent' | 'actions'>,
): Promise<ApprovalCard> {
  const post = await deps.db.posts.findOne({ _id: postId });
  const history = card.actions.map(({ chatUserId, chatUserName, result }) => ({ chatUserId, chatUserName, result }));
  if (!post) {
    // Rejected on this card or on the draft's card in another chat.
    const rejected =
      card.actions.some((action) => action.action === 'reject') ||
      (await deps.db.chatCards.findOne(
        { postId, workspaceId: card.workspaceId, 'actions.action': 'reject' },
        { projection: { _id: 1 } },
      )) !== null;
    return { ...EMPTY, postId, author: card.author, history, status: rejected ? 'rejected' : 'gone' };
  }
  const media = await deps.db.media.find({ _id: { $in: post.mediaIds }, workspaceId: post.workspaceId }).toArray();
  const byId = new Map(media.map((doc) => [doc._id, doc]));
  const ordered = post.mediaIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  const kind = ordered[0]?.mediaType === 'video' ? 'video' : 'photo';
  const shown = kind === 'video' ? ordered.slice(0, 1) : ordered;
  const platform = await deps.db.platforms.findOne({ _id: post.platformId });
  const provider = platform ? deps.providers.of(platform) : null;
  const privacy = typeof post.settings.privacy_level === 'string' ? post.settings.privacy_level : '';
  // Privacy and music are settings of some networks only (TikTok's): a card shows them where the network takes them.
  const keys: readonly string[] = platform ? SETTING_KEYS_BY_PROVIDER[platform.provider] : [];
  const takesMusic = keys.includes('auto_add_music');
  return {
    postId,
    status: statusOf(post, deps.now()),
    caption: card.editedContent ?? post.content,
    previews: shown.map((doc, index) => ({
      url: `${publicUrlOf(doc, deps.media.publicBaseUrl)}/preview`,
      alt: kind === 'video' ? 'Video poster' : `Slide ${index + 1} of ${shown.length}`,
    })),
    kind,
    network: provider?.name ?? '',
    account: platform && provider ? accountWords(provider.name, platform) : 'a disconnected account',
    privacy: keys.includes('privacy_level') ? (PRIVACY_WORDS[privacy] ?? (privacy || 'not set')) : '',
    author: card.author,
    musicNote: takesMusic && provider ? musicNote(provider.name, kind, post.settings.auto_add_music === true) : '',
    scheduledFor: post.state === 'QUEUE' ? post.scheduledFor : null,
    releaseUrl: post.releaseUrl,
    // Shown only beside a release URL, which only a post of a known account has.
    releaseLabel: provider?.publishing.releaseLinkLabel() ?? '',
    errorText: post.errorText,
    history,
  };
}

/** Who or what made the draft, in words, from its event. */
export async function describeAuthor(deps: CoreDeps, event: DomainEvent): Promise<string> {
  const { actor } = event;
  let who = 'Postdeck';
  if (actor.type === 'api_key') {
    const key = await deps.db.apiKeys.findOne({ _id: actor.keyId }, { projection: { name: 1 } });
    who = `API key "${key?.name ?? 'deleted'}"`;
  } else if (actor.type === 'user') {
    const user = await deps.db.users.findOne({ _id: actor.userId }, { projection: { name: 1 } });
    who = user?.name ?? 'a member';
  }
  return event.generationJobId ? `Slideshow generation ${event.generationJobId} for ${who}` : who;
}

function statusOf(post: PostDoc, now: Date): CardStatus {
  switch (post.state) {
    case 'DRAFT':
      return 'awaiting';
    case 'QUEUE':
      return post.scheduledFor && post.scheduledFor.getTime() > now.getTime() + 60_000 ? 'scheduled' : 'queued';
    case 'PUBLISHING':
      return 'queued';
    case 'PUBLISHED':
      return 'published';
    case 'ERROR':
      return 'failed';
  }
}

/** "Instagram · Ines (@ines.gram)", or "Instagram · @ines.gram" for an account without a display name. */
function accountWords(network: string, platform: PlatformDoc): string {
  const handle = platform.displayHandle ? `@${platform.displayHandle}` : '';
  const name = platform.displayName ?? (handle ? '' : `${network} account`);
  return `${network} · ${name && handle ? `${name} (${handle})` : name || handle}`;
}

/** TikTok's Content Posting API has no trending-music field (only auto_add_music); say so, and what was asked instead. */
function musicNote(network: string, kind: 'photo' | 'video', autoAddMusic: boolean): string {
  const cannot = `${network}'s API cannot attach trending music.`;
  if (kind === 'video') return `${cannot} The video keeps its own sound.`;
  return autoAddMusic
    ? `${cannot} Postdeck set auto_add_music, so ${network} adds recommended music.`
    : `${cannot} auto_add_music is off: the carousel posts without music.`;
}

const EMPTY: Omit<ApprovalCard, 'postId' | 'status' | 'author' | 'history'> = {
  caption: '',
  previews: [],
  kind: 'photo',
  network: '',
  account: '',
  privacy: '',
  musicNote: '',
  scheduledFor: null,
  releaseUrl: null,
  releaseLabel: '',
  errorText: null,
};
