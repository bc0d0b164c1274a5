import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { claimLease, releaseLease, type Lease } from '../db/leases.js';
import { purgeExpiredWithLeases } from '../db/purge-expired.js';
import { AppError } from '../errors.js';
import { hashSecret, hasSecretTokenShape, newSecretToken } from '../identity/tokens.js';
import type { UploadLinkDoc } from './documents.js';
import { requireFolder } from './folders.js';
import { ingestUpload } from './ingest.js';
import { MediaKindSchema, MediaMimeTypeSchema, UploadFieldsSchema } from './schema.js';
import { createUploadedMedia } from './upload-media.js';
import type { Media } from './view.js';
import { trimmedText } from '../text-schema.js';

/** Long enough to start a large upload from a shell, short enough that a leaked link soon dies. */
export const UPLOAD_LINK_TTL_MS = 15 * 60_000;
const LINK_PREFIX = 'pdu_';
/** How long an upload through a link may run before a crashed one's claim lapses. */
const UPLOAD_LEASE_MS = 2 * 60 * 60_000;
export const UPLOAD_LINK_PATH = '/public/v1/uploads';

/**
 * A link's fields are checked when it is made, so a wrong declared type is refused at once (400
 * naming the field) rather than by every PUT after it; the bytes must still match at the PUT.
 */
export const UploadLinkInputSchema = UploadFieldsSchema.extend({
  fileName: trimmedText(255).describe('the name the media will have, e.g. clip.mp4'),
  mimeType: MediaMimeTypeSchema.optional().describe('inferred from the bytes when omitted; must match them'),
  mediaType: MediaKindSchema.optional().describe('inferred from the MIME type when omitted; must match the bytes'),
});

export const UploadLinkSchema = z
  .object({
    uploadUrl: z.url().describe('send the file here with PUT as the raw body; no Authorization header needed'),
    method: z.literal('PUT'),
    expiresAt: z.iso.datetime().describe('the link works once, until this time'),
    maxBytes: z
      .object({ image: z.number().int(), video: z.number().int() })
      .describe('the largest image and video the upload accepts'),
    command: z.string().describe('a shell command that uploads the file (replace FILE with its path)'),
  })
  .meta({ id: 'UploadLink' });

export type UploadLink = z.infer<typeof UploadLinkSchema>;

/**
 * A single-use link that uploads one file as the caller, for files too large to pass inline (an
 * agent's shell sends them with `curl -T`). Its fields and folder are checked now, the bytes when
 * they arrive, exactly as a REST upload's.
 */
export async function createUploadLink(
  deps: CoreDeps,
  scope: Scope,
  input: z.infer<typeof UploadLinkInputSchema>,
): Promise<UploadLink> {
  if (input.folderId !== undefined && input.folderId !== 'null') await requireFolder(deps, scope, input.folderId);
  const secret = newSecretToken(LINK_PREFIX);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + UPLOAD_LINK_TTL_MS);
  await deps.db.uploadLinks.insertOne({
    _id: hashSecret(secret),
    workspaceId: scope.workspaceId,
    accountId: scope.accountId,
    actor: scope.actor,
    fields: input,
    state: 'open',
    mediaId: null,
    createdAt: now,
    expiresAt,
  });
  const uploadUrl = `${deps.media.uploadBaseUrl}${UPLOAD_LINK_PATH}/${secret}`;
  return {
    uploadUrl,
    method: 'PUT',
    expiresAt: expiresAt.toISOString(),
    maxBytes: { ...deps.media.limits },
    command: `curl --fail-with-body -sS -T FILE '${uploadUrl}'`,
  };
}

/**
 * Uploads `body` through the link `secret`. The link is taken for the upload's length (a second
 * upload at the same time is refused), spent when the media exists, and given back when the file
 * is refused or the upload breaks off, so a corrected retry works until the link expires.
 */
export async function uploadThroughLink(deps: CoreDeps, secret: string, body: Readable): Promise<Media> {
  const { link, lease } = await takeLink(deps, secret);
  try {
    const scope: Scope = { workspaceId: link.workspaceId, accountId: link.accountId, actor: link.actor };
    const file = await ingestUpload(deps.media, body);
    const media = await createUploadedMedia(deps, deps.media, scope, file, link.fields);
    // The lease is kept: a spent link can never be taken again.
    await deps.db.uploadLinks.updateOne({ _id: link._id }, { $set: { state: 'used', mediaId: media.id } });
    return media;
  } catch (error) {
    await releaseLease(deps.db, lease);
    throw error;
  }
}

async function takeLink(deps: CoreDeps, secret: string): Promise<{ link: UploadLinkDoc; lease: Lease }> {
  const unknown = new AppError('not_found', 'The upload link is unknown or has expired: ask for a new one');
  if (!hasSecretTokenShape(secret, LINK_PREFIX)) throw unknown;
  const _id = hashSecret(secret);
  const now = deps.now();
  const link = await deps.db.uploadLinks.findOne({ _id });
  if (!link || link.expiresAt <= now) throw unknown;
  const used = new AppError('conflict', 'The upload link has been used already');
  if (link.state === 'used') throw used;
  // A lease, not a conditional update, decides between two uploads at once (leases.ts says why).
  const lease = await claimLease(deps.db, leaseKey(_id), { ttlMs: UPLOAD_LEASE_MS, now });
  if (!lease) {
    const again = await deps.db.uploadLinks.findOne({ _id });
    throw again?.state === 'used' ? used : new AppError('conflict', 'An upload through this link is under way');
  }
  if (link.actor.type === 'api_key' && !(await keyStillValid(deps, link.actor.keyId))) {
    await deps.db.uploadLinks.deleteOne({ _id });
    throw new AppError('invalid_api_key', 'The API key that made this upload link has been revoked');
  }
  return { link, lease };
}

async function keyStillValid(deps: CoreDeps, keyId: string): Promise<boolean> {
  const key = await deps.db.apiKeys.findOne({ _id: keyId }, { projection: { revokedAt: 1 } });
  return key !== null && key.revokedAt === null;
}

/** Deletes links past their expiry, with their upload leases; returns how many went. */
export function purgeExpiredUploadLinks(deps: CoreDeps): Promise<number> {
  return purgeExpiredWithLeases(deps.db, deps.db.uploadLinks, leaseKey, deps.now());
}

function leaseKey(linkId: string): string {
  return `upload-link:${linkId}`;
}
