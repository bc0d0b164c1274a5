/** The errorText of a post whose init may have reached TikTok (the engine never sends it again). */
export const OUTCOME_UNKNOWN_TEXT =
  'outcome unknown: TikTok may have received this post; check the account before posting again';

/** The errorText of a post TikTok accepted but never reported finished within the polling limit. */
export const OUTCOME_UNCONFIRMED_TEXT = 'outcome unconfirmed: check the account before posting again';

/** The errorText of the replies of a root that ended in ERROR. */
export const ROOT_FAILED_TEXT = 'The first post of this thread was not published, so this reply was not sent.';
