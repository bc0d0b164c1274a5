import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerMetrics, METRICS_PATH, type HttpMetrics } from './exposition.js';

/** A worker's own `/metrics` listener (a worker serves no other HTTP). */
export interface MetricsListener {
  readonly url: string;
  stop(): Promise<void>;
}

/** Listens on host:port for `GET /metrics` only, under the same access rule as the API's route. */
export async function startMetricsListener(options: {
  metrics: HttpMetrics;
  token: string | undefined;
  host: string;
  port: number;
}): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ code: 'not_found', message: 'Only GET /metrics is served here' }));
      return;
    }
    answerMetrics(options.metrics, options.token, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.listen({ host: options.host, port: options.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
