import { TIKTOK_SETTINGS_EXAMPLES } from '../../core/providers/tiktok/index.js';

/** A named request body the API reference shows beside the schema. */
export interface RequestExample {
  summary: string;
  value: Record<string, unknown>;
}

// Placeholder ids in the shape the API checks: a platform id from list platforms, media ids from uploads.
const PLATFORM_ID = '3f6c1b8e-5d2a-4c7e-9b1f-2a8d4e6c0b17';
const MEDIA_IDS = [
  '8b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b',
  '9c3f5a7b-2d4e-4f6a-9b0c-1d2e3f4a5b6c',
  'ad406b8c-3e5f-4a7b-8c1d-2e3f4a5b6c7d',
];

/** Create posts: a carousel now, a video at a time, a minimal draft, a promotion. */
export const CREATE_POST_EXAMPLES: Record<string, RequestExample> = {
  carousel: {
    summary: 'A photo carousel, published now',
    value: {
      platformIds: [PLATFORM_ID],
      content: 'Three cafés in Lisbon worth the walk ☕️ #lisbon #coffee',
      mode: 'now',
      mediaIds: MEDIA_IDS,
      settings: TIKTOK_SETTINGS_EXAMPLES.photo,
    },
  },
  video: {
    summary: 'A video, scheduled',
    value: {
      platformIds: [PLATFORM_ID],
      content: 'How we roast on Mondays #coffee #behindthescenes',
      mode: 'schedule',
      scheduledFor: '2030-05-04T17:30:00Z',
      mediaIds: [MEDIA_IDS[0]],
      settings: TIKTOK_SETTINGS_EXAMPLES.video,
    },
  },
  draft: {
    summary: 'A draft with only the settings every post needs',
    value: {
      platformIds: [PLATFORM_ID],
      content: 'To review before it goes out',
      mode: 'draft',
      mediaIds: MEDIA_IDS,
      settings: TIKTOK_SETTINGS_EXAMPLES.minimal,
    },
  },
  promotion: {
    summary: "Promoting the creator's own business",
    value: {
      platformIds: [PLATFORM_ID],
      content: 'Our spring blend is here 🌸',
      mode: 'now',
      mediaIds: [MEDIA_IDS[1]],
      settings: TIKTOK_SETTINGS_EXAMPLES.promotion,
    },
  },
};

/** Publish a draft: now with reviewed settings, or at a time. */
export const PUBLISH_POST_EXAMPLES: Record<string, RequestExample> = {
  now: {
    summary: 'Publish now, with reviewed settings',
    value: { mode: 'now', settings: TIKTOK_SETTINGS_EXAMPLES.photo },
  },
  schedule: {
    summary: 'Publish at a time',
    value: { mode: 'schedule', scheduledFor: '2030-05-04T17:30:00Z', settings: TIKTOK_SETTINGS_EXAMPLES.photo },
  },
};

/** Generate a slideshow: its post is a photo carousel, so it takes photo settings. */
export const GENERATE_SLIDESHOW_EXAMPLES: Record<string, RequestExample> = {
  topic: {
    summary: 'Six slides on a topic, as a draft to review',
    value: {
      platformIds: [PLATFORM_ID],
      topic: 'Five habits for better sleep',
      slideCount: 6,
      mode: 'draft',
      settings: { ...TIKTOK_SETTINGS_EXAMPLES.photo, title: 'Sleep better tonight' },
    },
  },
};
