import { randomInt } from 'node:crypto';
import type { FailReason, Publish } from './publish-model.js';
import { isProcessing } from './publish-model.js';
import type { EmulatorState } from './state.js';

/**
 * A random 19-digit decimal starting with 7, like TikTok's post ids. Above 2^53 a double keeps at most 17
 * significant digits, so with a last digit of 1-9 a client that parses the id as a JS number always loses digits.
 */
export function nineteenDigits(): string {
  let digits = '7';
  for (let i = 0; i < 17; i += 1) digits += String(randomInt(10));
  return digits + String(1 + randomInt(9));
}

/**
 * Moves publishes along the state machine of contract 7 once their bytes are in: media checks and injected
 * failures decide the outcome, a processing hold (polls and/or ms) delays it, and moderation withholds the
 * post id of public posts for a number of polls.
 */
export class PublishEngine {
  constructor(private readonly state: EmulatorState) {}

  /** All bytes arrived; `checkFailure` is what the media checks found (null when they passed). */
  bytesIn(publish: Publish, checkFailure: FailReason | null): void {
    if (!isProcessing(publish)) return;
    const d = publish.directive;
    const failReason = checkFailure ?? d.failReason ?? null;
    const status = failReason ? 'FAILED' : publish.mode === 'DIRECT_POST' ? 'PUBLISH_COMPLETE' : 'SEND_TO_USER_INBOX';
    publish.outcome = { status, failReason };
    publish.holdPollsLeft = d.processingPolls ?? 0;
    publish.holdUntil = Date.now() + (d.processingMs ?? 0);
    if (status === 'PUBLISH_COMPLETE' && publish.effectivePrivacyLevel === 'PUBLIC_TO_EVERYONE') {
      publish.idsPending = 1;
      publish.moderationPollsLeft = d.moderationPolls ?? 0;
    }
    this.state.inflight.delete(publish.publishId);
    this.advance(publish, false);
    this.state.save();
  }

  /**
   * Applies what is due. A status poll (`poll`) spends one held poll or one moderation poll first, so N held
   * polls answer PROCESSING_* N times and N moderation polls answer PUBLISH_COMPLETE with [] N times.
   */
  advance(publish: Publish, poll: boolean): void {
    const before = JSON.stringify([
      publish.status,
      publish.holdPollsLeft,
      publish.moderationPollsLeft,
      publish.postIds,
    ]);
    if (publish.outcome && isProcessing(publish)) {
      if (poll && publish.holdPollsLeft > 0) {
        publish.holdPollsLeft -= 1;
        poll = false;
      } else if (publish.holdPollsLeft === 0 && Date.now() >= publish.holdUntil) {
        this.state.settle(publish, publish.outcome.status, publish.outcome.failReason, false);
      }
    }
    if (publish.status === 'PUBLISH_COMPLETE' && publish.idsPending > 0) {
      if (poll && publish.moderationPollsLeft > 0) {
        publish.moderationPollsLeft -= 1;
      } else if (publish.moderationPollsLeft === 0) {
        while (publish.postIds.length < publish.idsPending) publish.postIds.push(nineteenDigits());
        publish.idsPending = 0;
      }
    }
    const after = JSON.stringify([publish.status, publish.holdPollsLeft, publish.moderationPollsLeft, publish.postIds]);
    if (before !== after) this.state.save();
  }

  /** The "user posts the draft in the app" hook: SEND_TO_USER_INBOX → PUBLISH_COMPLETE with `postCount` ids if public. */
  userPosts(publish: Publish, privacyLevel: string, postCount: number): void {
    publish.effectivePrivacyLevel = privacyLevel;
    this.state.settle(publish, 'PUBLISH_COMPLETE', null, false);
    if (privacyLevel === 'PUBLIC_TO_EVERYONE') {
      publish.idsPending = postCount;
      publish.moderationPollsLeft = publish.directive.moderationPolls ?? 0;
    }
    this.advance(publish, false);
    this.state.save();
  }
}
