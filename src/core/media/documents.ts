// Stored documents of the media library. Ids are UUID strings kept in `_id`.
import type { Actor } from '../actor.js';

/** Where a media object came from (spec 2): uploads, baked-caption composites, raw AI images. */
export type MediaSource = 'upload' | 'composite' | 'generated';

/** A media object; its bytes live in the media store under `storageKey`. */
export interface MediaDoc {
  _id: string;
  workspaceId: string;
  source: MediaSource;
  status: 'PENDING' | 'READY';
  /** Opaque store key (128 random bits in hex), never a path. */
  storageKey: string;
  /** The secret part of the public URLs (128 random bits in hex), compared in constant time. */
  publicToken: string;
  /** The type of the stored bytes. */
  mimeType: string;
  /** Set when the upload was another type, converted before it was stored (a PNG, stored as JPEG). */
  convertedFrom?: 'image/png';
  mediaType: 'image' | 'video' | 'audio' | 'file';
  size: number | null;
  /** Hex SHA-256 of the bytes, served as the strong ETag. */
  sha256: string;
  originalFileName: string;
  folderId: string | null;
  /** Images: `{ width, height }`; videos: `{ width, height, durationSec, fps }` (each null when unreadable). */
  thumbnailMetadata: Record<string, unknown> | null;
  /** The stored preview, or null when the generic video placeholder is served. */
  preview: { storageKey: string; mimeType: string; size: number; sha256: string } | null;
  finalizedAt: Date | null;
  createdAt: Date;
  /**
   * A composite's baked caption, kept so a published carousel's hook (its slide 0 caption) can be
   * ranked by what the post did (src/core/insights). Absent on uploads, AI images and older composites.
   */
  caption?: MediaCaptionDoc;
  /** Set on an image Postdeck fitted to a network's aspect limits: the original and how (src/core/media/fit-aspect.ts). */
  fittedFrom?: FittedFromDoc;
}

/** How a fitted image was made from its original. */
export interface FittedFromDoc {
  mediaId: string;
  fit: AspectFit;
  /** The fit and the limits in one string: the same request finds the same fitted image. */
  key: string;
}

/** The shapes a network takes an image in: width / height from `minAspect` to `maxAspect`, and at most `maxWidth` px wide. */
export interface AspectLimits {
  minAspect: number;
  maxAspect: number;
  maxWidth?: number;
  /** The network takes JPEG only: an image in another format is rendered as JPEG even when its shape fits. */
  jpegOnly?: boolean;
}

/** How an image outside a network's aspect limits is made to fit: padded (blurred copy or a colour) or cropped to the centre. */
export type AspectFit = { mode: 'crop' } | { mode: 'pad'; background: 'blur' | `#${string}` };

/** The caption a composite slide was drawn with, as written or generated. */
export interface MediaCaptionDoc {
  /** The slide's index in its carousel (0 is the hook). */
  index: number;
  text: string;
  textStyleId: string;
  language: string;
}

/** Which derived copies of a media object exist (one per purpose). */
export type MediaRenditionKind = 'tiktok';

/**
 * A derived copy of a media object's bytes, `_id` = `${mediaId}#${kind}` (e.g. the JPEG sent to TikTok for an
 * image over 1080p). Its own document, not a field on the media doc: FerretDB rewrites whole documents, so
 * a rendition written while the media is moved to a folder could lose either change; inserting the `_id`
 * also decides between workers making the same rendition at once. Never updated after the insert.
 */
export interface MediaRenditionDoc {
  _id: string;
  mediaId: string;
  workspaceId: string;
  kind: MediaRenditionKind;
  storageKey: string;
  mimeType: string;
  size: number;
  /** Hex SHA-256 of the bytes, served as the strong ETag. */
  sha256: string;
  width: number;
  height: number;
  createdAt: Date;
}

/** A media folder; its name is unique per workspace through a `media_folder_names` reservation. */
export interface MediaFolderDoc {
  _id: string;
  workspaceId: string;
  name: string;
  nameKey: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Reserves a folder name in a workspace: `_id` is `${workspaceId}:${nameKey}`, so an insert
 * decides between concurrent creates and renames. (A unique index on the folders themselves would
 * do for inserts, but FerretDB reports an update that breaks one without the duplicate-key code.)
 */
export interface MediaFolderNameDoc {
  _id: string;
  folderId: string;
  createdAt: Date;
}

/**
 * A short-lived, single-use link to upload one file without a key (an agent's shell `curl -T`s to
 * it). Found by `_id`, the SHA-256 of the link's secret; the secret itself is never stored.
 */
export interface UploadLinkDoc {
  _id: string;
  workspaceId: string;
  accountId: string;
  /** Who asked for the link; the upload acts as them (a revoked key's links stop working). */
  actor: Actor;
  /** The upload's text fields, fixed when the link was made. */
  fields: { fileName: string; mimeType?: string; mediaType?: string; folderId?: string };
  /** open: not used yet (an upload under way holds a lease on it); used: it made `mediaId`. */
  state: 'open' | 'used';
  mediaId: string | null;
  createdAt: Date;
  expiresAt: Date;
}
