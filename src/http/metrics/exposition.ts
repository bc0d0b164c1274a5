import type { IncomingMessage, ServerResponse } from 'node:http';
import { metricsAccess } from './access.js';

/** What the HTTP adapter needs of the metrics: request timings in, the text exposition out. */
export interface HttpMetrics {
  /** One answered request, by the router's route pattern (`/public/v1/posts/:id`), never the raw path. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  exposition(): Promise<{ contentType: string; text: string }>;
}

export const METRICS_PATH = '/metrics';

const REFUSALS = {
  unauthorized: { status: 401, code: 'invalid_credentials', message: 'Send METRICS_TOKEN as a Bearer token' },
  forbidden: {
    status: 403,
    code: 'forbidden',
    message: 'Metrics answer loopback callers only, or the bearer of METRICS_TOKEN',
  },
} as const;

/**
 * Answers a `/metrics` request on a bare Node response: the exposition, or the refusal in the API's
 * error shape. Shared by the API's route and a worker's own listener, so both apply one rule.
 */
export async function answerMetrics(
  metrics: HttpMetrics,
  token: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const verdict = metricsAccess(token, { headers: req.headers, remoteAddress: req.socket.remoteAddress });
  if (verdict !== 'ok') {
    const { status, code, message } = REFUSALS[verdict];
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (verdict === 'unauthorized') headers['www-authenticate'] = 'Bearer realm="Postdeck metrics"';
    res.writeHead(status, headers).end(JSON.stringify({ code, message }));
    return;
  }
  const { contentType, text } = await metrics.exposition();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(text);
}
