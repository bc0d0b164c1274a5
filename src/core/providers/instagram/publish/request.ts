import type { InstagramItem } from './media-urls.js';

/** The parameters of the containers of one post: the one published, and a carousel's items in order. */
export interface ContainerParams {
  top: Record<string, string>;
  items: Record<string, string>[];
}

/**
 * The post's caption, media and checked settings as `POST /{ig-user-id}/media` takes them (contract 2.2): an
 * image with its alt text; a Reel with `share_to_feed` and `thumb_offset`; a carousel's items (no
 * caption, alt text per image) and its container (caption, collaborators). JSON values are sent as JSON text.
 */
export function containerParamsOf(
  kind: string,
  content: string,
  settings: Record<string, unknown>,
  items: readonly InstagramItem[],
): ContainerParams {
  const shared: Record<string, string> = {};
  if (content !== '') shared.caption = content;
  const collaborators = stringsOf(settings.collaborators);
  if (collaborators.length > 0) shared.collaborators = JSON.stringify(collaborators);
  const altTexts = altTextsOf(settings.alt_text, items.length);
  if (kind === 'carousel') {
    const children = items.map((item, index): Record<string, string> =>
      item.kind === 'image'
        ? { is_carousel_item: 'true', image_url: item.url, ...optional('alt_text', altTexts[index]) }
        : { is_carousel_item: 'true', media_type: 'VIDEO', video_url: item.url },
    );
    return { top: { media_type: 'CAROUSEL', ...shared }, items: children };
  }
  const item = items[0]!;
  if (kind === 'reel') {
    return {
      top: {
        media_type: 'REELS',
        video_url: item.url,
        ...shared,
        ...optional('share_to_feed', settings.share_to_feed),
        ...optional('thumb_offset', settings.thumb_offset),
      },
      items: [],
    };
  }
  return { top: { image_url: item.url, ...shared, ...optional('alt_text', altTexts[0]) }, items: [] };
}

/** Alt text per item, by item index (the rules' `alt_text` list; null or '' skips one). */
function altTextsOf(value: unknown, count: number): (string | undefined)[] {
  const list = Array.isArray(value) ? value : [];
  return Array.from({ length: count }, (_, i) => {
    const text: unknown = list[i];
    return typeof text === 'string' ? text : undefined;
  });
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((each): each is string => typeof each === 'string') : [];
}

/** `{ name: value as text }`, or nothing when the value is absent or empty. */
function optional(name: string, value: unknown): Record<string, string> {
  if (typeof value === 'string') return value === '' ? {} : { [name]: value };
  if (typeof value === 'number' || typeof value === 'boolean') return { [name]: String(value) };
  return {};
}
