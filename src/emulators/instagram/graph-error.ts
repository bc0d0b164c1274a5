import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

/** Meta's messages by subcode, else by code (contract 3.2 and 3.3). */
const SUBCODE_MESSAGES: Record<number, string> = {
  2207001: 'Instagram server error. Try again.',
  2207003: 'It takes too long to download the media.',
  2207004: 'The image is too large to download. It should be less than 8 MiB.',
  2207005: 'The image format is not supported. Supported formats are: jpeg.',
  2207006: 'The media cannot be found.',
  2207008: 'The media builder does not exist or has been expired.',
  2207009: 'The submitted image cannot be published. Please submit an image with a valid aspect ratio.',
  2207010: 'The submitted caption is too long.',
  2207018: 'Invalid collaborator username.',
  2207020: 'The media you are trying to access has expired. Please try to upload again.',
  2207026: 'The video format is not supported. Please check spec for supported video format.',
  2207027: 'The media is not ready for publishing, please wait for a moment',
  2207028:
    "Your post won't work as a carousel. Carousels need at least 2 photos/videos and no more than 10 photos/videos.",
  2207032: 'Create media fail, please try to re-create media',
  2207040: 'Cannot use more than 20 tags per created media.',
  2207042: 'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
  2207050: 'The Instagram account is restricted.',
  2207051: 'We restrict certain activity to protect our community. Tell us if you think we made a mistake.',
  2207052: 'The media could not be fetched from this uri.',
  2207057: 'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
};
const CODE_MESSAGES: Record<number, string> = {
  1: 'An unknown error occurred',
  2: 'An unexpected error has occurred. Please retry your request later.',
  4: 'Application request limit reached',
  10: '(#10) Application does not have permission for this action',
  17: 'User request limit reached',
  32: 'Page request limit reached',
  100: 'Invalid parameter',
  190: 'Invalid OAuth access token - Cannot parse access token',
  613: 'Calls to this api have exceeded the rate limit.',
  80002: 'There have been too many calls to this Instagram account. Wait a bit and try again.',
};

/** A refusal of fetched or uploaded media: the Graph code and subcode, and the words. */
export interface MediaRefusal {
  code: number;
  subcode?: number;
  message: string;
}

/** A Graph error as the emulator answers it. */
export interface GraphErrorSpec {
  code: number;
  subcode?: number;
  message?: string;
  httpStatus?: number;
  /** The text behind `error_user_msg`, when Meta adds one for people. */
  userMessage?: string;
}

/** The default message of a code and subcode. */
export function messageOf(code: number, subcode?: number): string {
  return (subcode !== undefined ? SUBCODE_MESSAGES[subcode] : undefined) ?? CODE_MESSAGES[code] ?? 'Error';
}

/** Answers with the Graph `error` object (contract 3.1): HTTP 400 unless told, `type` OAuthException. */
export function graphError(ctx: Context, spec: GraphErrorSpec): void {
  const message = spec.message ?? messageOf(spec.code, spec.subcode);
  ctx.status = spec.httpStatus ?? 400;
  ctx.body = {
    error: {
      message,
      type: 'OAuthException',
      code: spec.code,
      ...(spec.subcode !== undefined ? { error_subcode: spec.subcode } : {}),
      is_transient: spec.code === 2 || spec.code === -1 || spec.code === -2,
      ...(spec.userMessage ? { error_user_title: message, error_user_msg: spec.userMessage } : {}),
      fbtrace_id: randomBytes(9).toString('base64url'),
    },
  };
}

/** `(#100) …`: an invalid parameter without a subcode. */
export function invalidParameter(ctx: Context, message: string): void {
  graphError(ctx, { code: 100, message: `(#100) ${message}` });
}

/** The status string of a container in ERROR (contract 2.3). */
export function errorStatus(subcode: number): string {
  return `Error: Media upload has failed with error code ${subcode}`;
}
