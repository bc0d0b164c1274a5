import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
  ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';

const CAROUSEL = 'make_carousel';

/**
 * The workflow prompt: walks an agent through a photo carousel from a topic to a draft, in the order
 * the tools expect, asking the person before anything is published.
 */
export function registerPrompts(server: Server): void {
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      {
        name: CAROUSEL,
        title: 'Make a TikTok photo carousel',
        description: 'From a topic to a draft carousel on a connected account, step by step',
        arguments: [
          { name: 'topic', description: 'what the carousel is about', required: true },
          { name: 'account', description: 'which connected account (name or handle); the only one if left out' },
          { name: 'language', description: 'ISO code of the captions; the workspace default if left out' },
        ],
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, ({ params }) => {
    if (params.name !== CAROUSEL) throw new McpError(ErrorCode.InvalidParams, `No prompt is named ${params.name}`);
    const { topic, account, language } = params.arguments ?? {};
    if (!topic) throw new McpError(ErrorCode.InvalidParams, 'topic is required');
    return {
      description: `A draft carousel about ${topic}`,
      messages: [{ role: 'user', content: { type: 'text', text: carouselSteps(topic, account, language) } }],
    };
  });
}

function carouselSteps(topic: string, account?: string, language?: string): string {
  return [
    `Make a TikTok photo carousel about: ${topic}. Leave it as a draft for me to review.`,
    '',
    'Use the Postdeck tools in this order:',
    `1. list_platforms, and pick ${account ? `the account "${account}"` : 'the connected account (ask me if there are several)'}.`,
    '2. get_platform_schema for it: note the content limit, the privacy levels allowed now and the settings it needs.',
    `3. generate_captions with the topic${language ? ` in language ${language}` : ''} and imagePrompt true: slide 0 is the hook.`,
    '4. For each slide, an image: upload_media with my files if I gave you any, or generate_slideshow to have Postdeck draw',
    '   the images, bake the captions on and create the draft in one go (ask for progress; it reports as it works).',
    '5. With your own images: composite_slides bakes each caption onto its image, in slide order; read its warnings and',
    '   shorten any caption it had to shrink, and reword any whose characters it left out (unsupported_character).',
    '6. create_post with mode draft, the composited media ids in order, a post caption with a few hashtags, and the',
    '   settings the schema asks for (privacy_level from its allowed list).',
    '7. Show me the draft (get_post) and wait for my go-ahead before publish_post.',
    '',
    'If a tool answers isError, read its code and details: fix the named field and try again, or tell me what is needed.',
  ].join('\n');
}
