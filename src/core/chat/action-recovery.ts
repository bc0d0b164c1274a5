import type { CoreDeps } from '../context.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';
import { actOnCard, type CardAction } from './actions.js';
import type { ChatCardActionDoc } from './documents.js';
import { failureText } from './refusal.js';
import { endCardAction, withRecordedAction } from './recorded-actions.js';

/** How often the worker looks for clicks whose process died (run by the housekeeping job). */
export const CARD_ACTION_RECOVERY_EVERY_MS = 10_000;

/** A click older than this is not carried out any more: the person may have moved on. */
export const CARD_ACTION_EXPIRY_MS = 5 * 60_000;

const ACTION_WORDS: Readonly<Record<CardAction['type'], string>> = {
  approve: 'approval',
  schedule: 'scheduling',
  edit: 'caption edit',
  reject: 'rejection',
};

/**
 * Carries out the clicks acknowledged by a process that died before acting (their claim lapsed):
 * each is claimed, run through actOnCard and its card redrawn through this worker's chat gateways;
 * a refusal is said under the card (the private route died with the click's process). A click
 * pending longer than CARD_ACTION_EXPIRY_MS is expired instead, with a reply asking to click again.
 * Answers how many were carried out.
 */
export async function recoverCardActions(deps: CoreDeps): Promise<number> {
  const lapsed = await deps.db.chatCardActions
    .find({ state: 'pending', claimedUntil: { $lte: deps.now() } })
    .limit(100)
    .toArray();
  let recovered = 0;
  for (const { _id } of lapsed) {
    try {
      if (await withRecordedAction(deps, _id, (doc) => recoverOne(deps, doc))) recovered++;
    } catch (error) {
      deps.logger.warn({ err: error, cardActionId: _id }, 'recovering a card action failed');
    }
  }
  if (recovered > 0) deps.logger.info({ recovered }, 'carried out card actions whose process had died');
  return recovered;
}

async function recoverOne(deps: CoreDeps, doc: ChatCardActionDoc): Promise<boolean> {
  const gateway = deps.chat[doc.actor.platform];
  if (!gateway) return false; // this worker does not speak that chat; one that does will
  const who = doc.actor.chatUserName;
  if (deps.now().getTime() - doc.createdAt.getTime() > CARD_ACTION_EXPIRY_MS) {
    await endCardAction(deps, doc._id, 'expired', true);
    const words = `Postdeck restarted before acting on ${who}'s ${ACTION_WORDS[doc.action.type]}: nothing was done. Please click again.`;
    await gateway.replyToCard(doc.place, doc.messageId, words);
    return false;
  }
  let card;
  try {
    card = await actOnCard(deps, doc.actor, doc.action);
  } catch (error) {
    await endCardAction(deps, doc._id, 'done', true);
    const text = failureText(deps.logger, error, 'a recovered card action', { cardActionId: doc._id });
    await gateway.replyToCard(doc.place, doc.messageId, `${who}: ${text}`);
    return true;
  }
  await endCardAction(deps, doc._id, 'done', true);
  await gateway.updateCard(doc.place, doc.messageId, card);
  return true;
}

export const recoverCardActionsJob = definePeriodicJob('chat.recover-card-actions', async (deps) => {
  await recoverCardActions(deps);
});
