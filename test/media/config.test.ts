import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const emptyDir = () => mkdtempSync(path.join(os.tmpdir(), 'postdeck-config-'));

describe('media settings', () => {
  it('default to the local store under DATA_DIR, TikTok-sized limits and PUBLIC_URL as the base', () => {
    const cwd = emptyDir();
    const config = loadConfig({ PUBLIC_URL: 'https://deck.example.com/' }, { cwd });
    expect(config.media).toEqual({
      store: { kind: 'local', dir: path.join(cwd, 'data', 'media') },
      publicBaseUrl: 'https://deck.example.com',
      maxImageBytes: 20 * 1024 * 1024,
      maxVideoBytes: 4 * 1024 * 1024 * 1024,
      decodes: { slots: os.availableParallelism(), queue: 8 },
    });
  });

  it('take PUBLIC_BASE_URL, MEDIA_DIR, the limits and the decode gate from the environment', () => {
    const cwd = emptyDir();
    const config = loadConfig(
      {
        PUBLIC_BASE_URL: 'https://media.example.com',
        MEDIA_DIR: '/srv/media',
        MEDIA_MAX_IMAGE_BYTES: '1000',
        MEDIA_MAX_VIDEO_BYTES: '2000',
        DECODE_CONCURRENCY: '3',
        DECODE_QUEUE: '0',
      },
      { cwd },
    );
    expect(config.media).toMatchObject({
      store: { kind: 'local', dir: '/srv/media' },
      publicBaseUrl: 'https://media.example.com',
      maxImageBytes: 1000,
      maxVideoBytes: 2000,
      decodes: { slots: 3, queue: 0 },
    });
  });

  it('select an S3 bucket with MEDIA_STORE=s3', () => {
    const config = loadConfig(
      { MEDIA_STORE: 's3', S3_BUCKET: 'deck-media', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true' },
      { cwd: emptyDir() },
    );
    expect(config.media.store).toEqual({
      kind: 's3',
      bucket: 'deck-media',
      prefix: '',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      accessKeyId: undefined,
      secretAccessKey: undefined,
    });
  });

  it('refuse S3 without a bucket and half a credential pair, naming the variables', () => {
    let error: unknown;
    try {
      loadConfig({ MEDIA_STORE: 's3', S3_ACCESS_KEY_ID: 'AKIA' }, { cwd: emptyDir() });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.join('\n')).toMatch(/S3_BUCKET[\s\S]*S3_SECRET_ACCESS_KEY/);
  });
});
