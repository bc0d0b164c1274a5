import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  HTTPModuleFunctions,
  isValidSlackRequest,
  type App,
  type BufferedIncomingMessage,
  type HTTPReceiver,
  type ReceiverEvent,
} from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../logger.js';
import { respond } from './gateway.js';

export const NO_LONGER_SUPPORTED = 'This button is no longer supported: Postdeck did nothing. Use a newer card.';

// The fields Postdeck's listeners read, so a payload Bolt would trip over never reaches them.
const person = z.object({ id: z.string().min(1) });
const team = z.object({ id: z.string().min(1) }).nullable();
const blockActions = z.object({
  type: z.literal('block_actions'),
  user: person,
  team,
  trigger_id: z.string(),
  response_url: z.string().url(),
  actions: z.array(z.object({ action_id: z.string().min(1), value: z.string().optional() })).min(1),
});
const viewAction = z.object({
  type: z.enum(['view_submission', 'view_closed']),
  user: person,
  team,
  view: z.object({
    callback_id: z.string(),
    private_metadata: z.string(),
    state: z.object({ values: z.record(z.string(), z.unknown()) }).optional(),
  }),
});

/**
 * Slack shows the person an error for any interaction not answered 200 within 3 s, and Bolt answers
 * only what a listener acknowledges: a button Postdeck no longer has (an old card after a rename)
 * would wait 3 s for a 404, a payload Bolt cannot read would get a 500. So the receiver hands every
 * signed request to Bolt through here: interactions missing what the listeners read are not passed
 * on, and whatever no listener acknowledged is acknowledged once Bolt is done, with "no longer
 * supported" said privately through the response_url when there is one. Nothing changes.
 */
export function acknowledgeEverything(receiver: HTTPReceiver, app: App, logger: Logger): void {
  const processEvent = async (event: ReceiverEvent): Promise<void> => {
    let acknowledged = false;
    const ack: ReceiverEvent['ack'] = async (response) => {
      acknowledged = true;
      await event.ack(response);
    };
    const body: Record<string, unknown> = event.body;
    if (isReadable(body)) {
      try {
        await app.processEvent({ ...event, ack });
      } catch (error) {
        logger.warn({ err: error, type: body.type }, 'Bolt could not handle a Slack request');
      }
    } else {
      logger.warn({ type: body.type }, 'a Slack interaction without the fields Postdeck reads');
    }
    if (acknowledged) return;
    await event.ack();
    logger.info({ type: body.type, ids: idsOf(body) }, 'acknowledged a Slack interaction Postdeck does not handle');
    if (body.type === 'block_actions' && typeof body.response_url === 'string') {
      await tellPrivately(body.response_url, logger);
    }
  };
  // The receiver calls only processEvent on the app it is given.
  receiver.init({ processEvent } as unknown as App);
}

function isReadable(body: Record<string, unknown>): boolean {
  if (body.type === 'block_actions' || body.actions !== undefined) return blockActions.safeParse(body).success;
  if (body.type === 'view_submission' || body.type === 'view_closed') return viewAction.safeParse(body).success;
  return true;
}

async function tellPrivately(responseUrl: string, logger: Logger): Promise<void> {
  if (!z.string().url().safeParse(responseUrl).success) return;
  try {
    await respond(responseUrl, { response_type: 'ephemeral', replace_original: false, text: NO_LONGER_SUPPORTED });
  } catch (error) {
    logger.warn({ err: error }, 'Slack refused the "no longer supported" answer');
  }
}

/** What the payload names (action ids, a view's callback id), for the log. */
function idsOf(body: Record<string, unknown>): unknown {
  if (Array.isArray(body.actions))
    return body.actions.map((action: { action_id?: unknown } | null) => action?.action_id);
  return (body.view as { callback_id?: unknown } | undefined)?.callback_id ?? body.callback_id;
}

/**
 * The receiver's request listener for POST /slack/events, with the body read first: a signed body
 * whose JSON is not an object (`payload=null`) makes Bolt's receiver throw where nothing catches it,
 * leaving the request unanswered; it is acknowledged here instead. Everything else, unsigned bodies
 * included, goes on to Bolt, which checks the signature itself.
 */
export function readBodyFirst(
  receiver: HTTPReceiver,
  signingSecret: string,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    HTTPModuleFunctions.bufferIncomingMessage(req, HTTPModuleFunctions.defaultBodyLimit).then(
      (buffered) => {
        if (isSignedNonObject(buffered, signingSecret)) {
          logger.warn('acknowledged a signed Slack request whose body is not an object');
          HTTPModuleFunctions.buildNoBodyResponse(res, 200);
          return;
        }
        receiver.requestListener(buffered, res);
      },
      () => HTTPModuleFunctions.buildNoBodyResponse(res, 413),
    );
  };
}

function isSignedNonObject(req: BufferedIncomingMessage, signingSecret: string): boolean {
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(req);
  } catch {
    return false;
  }
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return false;
  const signature = req.headers['x-slack-signature'];
  const timestamp = Number(req.headers['x-slack-request-timestamp']);
  if (typeof signature !== 'string' || !Number.isFinite(timestamp)) return false;
  return isValidSlackRequest({
    signingSecret,
    body: req.rawBody.toString(),
    headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
  });
}
