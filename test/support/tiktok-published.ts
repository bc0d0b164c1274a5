import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeJpeg } from './media.js';
import { apiCall, pollStatus } from './tiktok.js';
import { buildMp4 } from './video.js';

/** The scopes of a connection that may publish and read the numbers. */
export const ANALYTICS_GRANT = 'user.info.basic,video.publish,video.upload,video.list,user.info.stats';

/** A tiny media host serving one photo and one video, for emulated posts pulled from a URL. */
export interface MediaHost {
  base: string;
  /** Emulator options that let it pull from this host over http. */
  emulatorOptions: { allowHttpPullUrls: true; verifiedUrlPrefixes: string[] };
  stop(): Promise<void>;
}

/** Starts the media host on a free loopback port. */
export async function startMediaHost(): Promise<MediaHost> {
  const files = new Map<string, Buffer>([
    ['/media/photo.jpg', await makeJpeg(1080, 1920)],
    ['/media/clip.mp4', buildMp4({ width: 720, height: 1280, durationSec: 8, fps: 25, payloadBytes: 20_000 })],
  ]);
  const server: Server = createServer((req, res) => {
    const file = files.get(req.url ?? '');
    res.writeHead(file ? 200 : 404, file ? { 'content-length': file.length } : {});
    res.end(file);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    emulatorOptions: { allowHttpPullUrls: true, verifiedUrlPrefixes: [`${base}/media/`] },
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Publishes a video or a photo post through the emulator's API as `token`'s creator and waits for the post id
 * (only public posts get one). Returns the post id, or null for a post that got none.
 */
export async function publishPost(
  emulatorUrl: string,
  token: string,
  host: MediaHost,
  options: { kind?: 'video' | 'photo'; privacy?: string; title?: string } = {},
): Promise<string | null> {
  const privacy = options.privacy ?? 'PUBLIC_TO_EVERYONE';
  const title = options.title ?? 'A post';
  const init =
    options.kind === 'photo'
      ? await apiCall(emulatorUrl, token, '/v2/post/publish/content/init/', {
          media_type: 'PHOTO',
          post_mode: 'DIRECT_POST',
          post_info: { privacy_level: privacy, title, description: `${title}, described` },
          source_info: {
            source: 'PULL_FROM_URL',
            photo_images: [`${host.base}/media/photo.jpg`],
            photo_cover_index: 0,
          },
        })
      : await apiCall(emulatorUrl, token, '/v2/post/publish/video/init/', {
          post_info: { privacy_level: privacy, title },
          source_info: { source: 'PULL_FROM_URL', video_url: `${host.base}/media/clip.mp4` },
        });
  if (init.status !== 200) throw new Error(`init answered ${init.status}: ${init.text}`);
  const publishId = String(init.json.data!.publish_id);
  const done = await pollStatus(emulatorUrl, token, publishId);
  if (done.data.status !== 'PUBLISH_COMPLETE') throw new Error(`publish ended ${String(done.data.status)}`);
  // The status answer carries ids as bare 19-digit numbers; read them from the text so no digit is lost.
  return /"publicaly_available_post_id":\[(\d+)/.exec(done.text)?.[1] ?? null;
}
