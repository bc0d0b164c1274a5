// TikTok's answers in the words a post's errorText shows.

/** The errorText of a thread reply on a provider without replies (TikTok). */
export const NO_THREAD_REPLIES_TEXT = 'TikTok does not support thread replies';

/**
 * Plain words for TikTok's documented init refusals (contract 4.2, 4.4): TikTok created nothing, and sending
 * the same post again would be refused again, so the post ends in ERROR (the cap unit is refunded).
 */
export const INIT_REFUSAL_TEXTS: Readonly<Record<string, string>> = Object.freeze({
  spam_risk_too_many_posts:
    'TikTok refused the post: this account reached its daily post limit. Nothing was posted; publish again tomorrow.',
  spam_risk_user_banned_from_posting:
    'TikTok refused the post: this account is banned from posting. Nothing was posted.',
  reached_active_user_cap:
    "TikTok refused the post: this app reached TikTok's daily limit of posting accounts. Nothing was posted; publish again tomorrow.",
  unaudited_client_can_only_post_to_private_accounts:
    'TikTok refused the post: this TikTok app is not audited yet, so it may only post to private accounts. ' +
    'Nothing was posted; make the account private (or use an audited app) and publish again.',
  url_ownership_unverified:
    "TikTok refused the post: the media URLs' domain is not verified for this TikTok app. Nothing was posted; " +
    "add the domain of PUBLIC_BASE_URL to the app's URL properties in the TikTok developer portal and publish again.",
  privacy_level_option_mismatch:
    'TikTok refused the post: its privacy level is not one this account offers now. Nothing was posted; ' +
    'choose another privacy level and publish again.',
  spam_risk_too_many_pending_share:
    "TikTok refused the post: too many unfinished drafts wait in this account's TikTok inbox. Nothing was posted.",
  app_version_check_failed:
    'TikTok refused the post: the TikTok app of this account is too old (version 31.8 or later is needed). Nothing was posted.',
  scope_not_authorized:
    'Reconnect this TikTok account and allow posting: TikTok says Postdeck may not post for it. Nothing was posted.',
  access_token_invalid:
    'Reconnect this TikTok account: TikTok refused its access even after a refresh. Nothing was posted.',
});

/** Plain words for an init refusal; invalid_param(s) and unknown codes quote TikTok's own message. */
export function initRefusalText(tiktokCode: string, tiktokMessage: string): string {
  const known = INIT_REFUSAL_TEXTS[tiktokCode];
  if (known) return known;
  if (tiktokCode === 'refused_by_client') return `Postdeck did not send this post to TikTok: ${tiktokMessage}`;
  if (tiktokCode === 'invalid_param' || tiktokCode === 'invalid_params') {
    return `TikTok refused the post's fields (${tiktokMessage}). Nothing was posted; fix the post and publish again.`;
  }
  return `TikTok refused the post (${tiktokCode}: ${tiktokMessage}). Nothing was posted.`;
}

/** Plain words for every asynchronous `fail_reason` of contract 4.6. */
export const FAIL_REASON_TEXTS: Readonly<Record<string, string>> = Object.freeze({
  file_format_check_failed:
    'TikTok could not process the file format. Use an MP4, MOV or WebM video (H.264) or JPEG/WebP photos.',
  duration_check_failed: "TikTok refused the video's length: it is too short or longer than this account may post.",
  frame_rate_check_failed: "TikTok refused the video's frame rate (it takes 23 to 60 frames per second).",
  picture_size_check_failed: "TikTok refused the picture size: the resolution is out of TikTok's range.",
  internal: 'TikTok failed while processing the post (an internal error on its side). Publish it again.',
  video_pull_failed:
    'TikTok could not download the video from Postdeck (connection error or one-hour timeout). ' +
    'Check that PUBLIC_BASE_URL is reachable from the internet, then publish again.',
  photo_pull_failed:
    'TikTok could not download the photos from Postdeck (connection error or one-hour timeout). ' +
    'Check that PUBLIC_BASE_URL is reachable from the internet, then publish again.',
  publish_cancelled: 'The post was cancelled before TikTok finished downloading it.',
  auth_removed:
    "The account owner removed Postdeck's access on TikTok while the post was processing. Reconnect the account before posting again.",
  spam_risk_too_many_posts:
    'TikTok refused the post: this account reached its daily post limit. Publish again tomorrow.',
  spam_risk_user_banned_from_posting: 'TikTok refused the post: this account is banned from posting.',
  spam_risk_text:
    'TikTok judged the caption risky and refused the post. Change the caption; do not send it unchanged again.',
  spam_risk: 'TikTok judged the request risky and refused the post. Do not send it unchanged again.',
});

/** The errorText of a publish TikTok ended FAILED. */
export function failReasonText(failReason: string | null): string {
  if (!failReason) return 'TikTok failed the post without saying why.';
  return FAIL_REASON_TEXTS[failReason] ?? `TikTok failed the post (${failReason}).`;
}
