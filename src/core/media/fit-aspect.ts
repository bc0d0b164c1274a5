import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import type { WhenBusy } from './decode-gate.js';
import type { AspectFit, AspectLimits, MediaDoc } from './documents.js';
import { TRANSPARENCY_BACKGROUND } from './convert-png.js';
import { DECODE_OPTIONS, requireWithinPixelCap } from './preview.js';
import { readMediaBytes, storeMediaBytes } from './store-bytes.js';

/** The fitted JPEG's quality: high, since the network encodes it again. */
const FITTED_JPEG = Object.freeze({ quality: 92 });

/**
 * An image of this workspace in a shape a network takes: the image itself when its aspect ratio is within
 * `limits` (and it is a JPEG, when the network takes only those), else a new JPEG media object (the original's source, `fittedFrom` naming the original and the fit)
 * at the nearest allowed ratio. `pad` keeps every pixel of the image and adds a background (a blurred,
 * darkened copy of the image, or a colour); `crop` keeps its centre. Nothing is scaled up; a result wider
 * than `maxWidth` is scaled down. Asked again for the same image, fit and limits, it answers the image made
 * the first time. Network-neutral: a provider's rules call it with the limits they declare.
 */
export async function fitToAspect(
  deps: CoreDeps,
  scope: Scope,
  media: MediaDoc,
  limits: AspectLimits,
  fit: AspectFit,
  whenBusy: WhenBusy = 'refuse',
): Promise<MediaDoc> {
  if (media.mediaType !== 'image') throw new AppError('invalid_request', `media ${media._id} is not an image`);
  const { width, height } = await uprightSize(deps, media);
  const target = fittedSize(width, height, limits, fit);
  const convert = limits.jpegOnly === true && media.mimeType !== 'image/jpeg';
  if (target.width === width && target.height === height && !convert) return media;
  const key = fitKey(fit, limits);
  const earlier = await deps.db.media.findOne({
    workspaceId: scope.workspaceId,
    'fittedFrom.mediaId': media._id,
    'fittedFrom.key': key,
  });
  if (earlier) return earlier;
  requireWithinPixelCap(width, height);
  const bytes = await deps.media.decodes.run(async () => {
    const source = await readMediaBytes(deps, media.storageKey);
    return (await fittedImage(source, target, fit)).jpeg(FITTED_JPEG).toBuffer();
  }, whenBusy);
  const stem = path.parse(media.originalFileName).name;
  const stored = await storeMediaBytes(deps, scope, bytes, {
    source: media.source,
    fileName: `${stem}-${fit.mode}-${target.width}x${target.height}.jpg`,
    fittedFrom: { mediaId: media._id, fit, key },
  });
  return (await deps.db.media.findOne({ _id: stored.id })) as MediaDoc;
}

/** The size a `width` x `height` image becomes: the same when within `limits`. */
export function fittedSize(
  width: number,
  height: number,
  limits: AspectLimits,
  fit: AspectFit,
): { width: number; height: number } {
  const aspect = width / height;
  let size = { width, height };
  if (aspect < limits.minAspect)
    size =
      fit.mode === 'pad'
        ? { width: Math.ceil(height * limits.minAspect), height }
        : { width, height: Math.floor(width / limits.minAspect) };
  else if (aspect > limits.maxAspect)
    size =
      fit.mode === 'pad'
        ? { width, height: Math.ceil(width / limits.maxAspect) }
        : { width: Math.floor(height * limits.maxAspect), height };
  if (limits.maxWidth !== undefined && size.width > limits.maxWidth) {
    const scaled = { width: limits.maxWidth, height: Math.round((size.height * limits.maxWidth) / size.width) };
    // Rounding the height may step just outside the limits: the nearest height inside them.
    if (scaled.width / scaled.height < limits.minAspect) scaled.height = Math.floor(scaled.width / limits.minAspect);
    if (scaled.width / scaled.height > limits.maxAspect) scaled.height = Math.ceil(scaled.width / limits.maxAspect);
    size = scaled;
  }
  return size;
}

/** The image's size as shown (EXIF orientations 5 to 8 turn it a quarter), from its header alone. */
async function uprightSize(deps: CoreDeps, media: MediaDoc): Promise<{ width: number; height: number }> {
  const meta = await (
    await deps.media.store.get(media.storageKey)
  )
    .pipe(sharp({ limitInputPixels: false }))
    .metadata()
    .catch(() => {
      throw new AppError('invalid_media_file', 'The image could not be decoded');
    });
  const [width, height] = [meta.width ?? 0, meta.height ?? 0];
  if (!width || !height) throw new AppError('invalid_media_file', 'The image has no dimensions');
  return (meta.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
}

function fitKey(fit: AspectFit, limits: AspectLimits): string {
  const how = fit.mode === 'pad' ? `pad:${fit.background.toLowerCase()}` : 'crop';
  return `${how}:${limits.minAspect}-${limits.maxAspect}:${limits.maxWidth ?? ''}${limits.jpegOnly ? ':jpeg' : ''}`;
}

/** The image drawn at `size`: its centre cover-cropped, or whole on the background. Upright, in sRGB, no alpha. */
async function fittedImage(source: Buffer, size: { width: number; height: number }, fit: AspectFit): Promise<Sharp> {
  const read = () => sharp(source, DECODE_OPTIONS).rotate();
  if (fit.mode === 'crop')
    return read().resize(size.width, size.height, { fit: 'cover' }).flatten({ background: TRANSPARENCY_BACKGROUND });
  const foreground = await read()
    .resize(size.width, size.height, { fit: 'inside' })
    .flatten({ background: TRANSPARENCY_BACKGROUND })
    .toBuffer({ resolveWithObject: true });
  const background =
    fit.background === 'blur'
      ? sharp(
          await read()
            // Blurred small, then enlarged: the same look for a fraction of the work.
            .resize(Math.ceil(size.width / 4), Math.ceil(size.height / 4), { fit: 'cover' })
            .flatten({ background: TRANSPARENCY_BACKGROUND })
            .blur(6)
            .modulate({ brightness: 0.6 })
            .toBuffer(),
        ).resize(size.width, size.height, { fit: 'fill' })
      : sharp({ create: { width: size.width, height: size.height, channels: 3, background: fit.background } });
  const canvas = await background.toColourspace('srgb').png().toBuffer();
  return sharp(canvas)
    .composite([
      {
        input: foreground.data,
        left: Math.round((size.width - foreground.info.width) / 2),
        top: Math.round((size.height - foreground.info.height) / 2),
      },
    ])
    .toColourspace('srgb');
}
