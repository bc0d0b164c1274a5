import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatEndpoint } from '../../core/chat/gateway.js';
import { answerInteraction } from './interactions.js';
import { isReadableInteraction } from './readable.js';
import { ephemeral, type DiscordBot } from './replies.js';
import { interactionKey, isSignedByDiscord } from './signature.js';

const CANNOT_READ = 'Postdeck cannot read this interaction, so it did nothing. Try again from a newer card or command.';

/** Interactions are small JSON documents; anything bigger is not Discord's. */
export const MAX_INTERACTION_BYTES = 1024 * 1024;

/**
 * POST /discord/interactions, Discord's Interactions Endpoint URL: the raw body is read (1 MiB at
 * most) and its Ed25519 signature and timestamp checked before anything else (401 otherwise: Discord
 * sends bad signatures on purpose to test this). The answer goes in the HTTP body; slow work
 * continues after it is sent, through the interaction's token.
 */
export function interactionsEndpoint(bot: DiscordBot): ChatEndpoint {
  const key = interactionKey(bot.config.publicKey);
  return {
    method: 'POST',
    path: '/discord/interactions',
    handle(req, res) {
      handle(bot, key, req, res).catch((error: unknown) => {
        bot.logger.error({ err: error }, 'a Discord interaction failed');
        if (!res.headersSent) send(res, 500, { error: 'internal_error' });
      });
    },
  };
}

async function handle(
  bot: DiscordBot,
  key: ReturnType<typeof interactionKey>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const raw = await readRawBody(req, MAX_INTERACTION_BYTES);
  if (!raw) return send(res, 413, { error: 'payload_too_large' });
  const headers = { signature: header(req, 'x-signature-ed25519'), timestamp: header(req, 'x-signature-timestamp') };
  if (!isSignedByDiscord(key, headers, raw, Date.now())) return send(res, 401, { error: 'invalid_request_signature' });
  let interaction: unknown;
  try {
    interaction = JSON.parse(raw.toString('utf8'));
  } catch {
    return send(res, 400, { error: 'invalid_json' });
  }
  if (!isReadableInteraction(interaction)) {
    bot.logger.warn('answered a signed Discord interaction Postdeck cannot read');
    return send(res, 200, ephemeral(CANNOT_READ));
  }
  const answer = await answerInteraction(bot, interaction);
  send(res, 200, answer.response);
  answer.after?.().catch((error: unknown) => {
    bot.logger.error({ err: error, interactionId: interaction.id }, 'a Discord interaction failed after its answer');
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body's bytes, or null past `limit` (the rest is not read). */
function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
