import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { ErrorCodes } from '../core/errors.js';

/** A listening HTTP server with an orderly stop. */
export interface RunningHttpServer {
  readonly port: number;
  readonly url: string;
  /**
   * Stops accepting connections and lets the requests in flight finish, up to the grace; those still
   * unanswered then get 503 `shutting_down`. Resolves once every request's handler has settled (so
   * nothing it wrote is half done) or, for a handler that ignores its closed connection, a moment later.
   */
  stop(): Promise<void>;
}

const DEFAULT_GRACE_MS = 10_000;
/** After the grace: how long handlers get to notice their closed connection and clean up. */
const UNWIND_MS = 5_000;

/** The answer to a request the shutdown cuts short or that arrives while it runs. */
const SHUTTING_DOWN = JSON.stringify({
  code: ErrorCodes.shutting_down,
  message: 'Postdeck is shutting down; retry in a moment',
});

/** Starts `app` on host:port (port 0 picks a free one); `graceMs` bounds how long a stop waits for requests. */
export async function startHttpServer(
  app: Koa,
  options: { host: string; port: number; graceMs?: number },
): Promise<RunningHttpServer> {
  const handle = app.callback();
  // Each request's handler, settled when Koa has answered (or given up): what a stop waits for.
  const inFlight = new Map<ServerResponse, Promise<void>>();
  let stopping: Promise<void> | undefined;
  const server: Server = createServer((req, res) => {
    if (stopping) {
      req.resume();
      answerShuttingDown(res);
      return;
    }
    const settled = handle(req, res).then(
      () => undefined,
      () => undefined,
    );
    inFlight.set(res, settled);
    void settled.finally(() => inFlight.delete(res));
  });
  server.listen({ host: options.host, port: options.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const displayHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;

  return {
    port,
    url: `http://${displayHost}:${port}`,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Answers still to come close their connection, so no client sends another request on it.
        for (const res of inFlight.keys()) if (!res.headersSent) res.setHeader('connection', 'close');
        if (!(await settleWithin([...inFlight.values()], graceMs))) {
          for (const res of inFlight.keys()) cutShort(res);
          await settleWithin([...inFlight.values()], UNWIND_MS);
        }
        server.closeAllConnections();
        await closed;
      })();
      return stopping;
    },
  };
}

/**
 * Answers 503 `shutting_down` (unless the answer has begun), then ends the request: a body still
 * arriving fails, so an upload's pipeline stops and deletes what it stored. Node never ends a request
 * whose answer went first, so without this its handler would wait forever.
 */
function cutShort(res: ServerResponse): void {
  const end = () => void res.req.destroy();
  if (res.headersSent) return end();
  // After 'finish': destroying the request closes the socket, which must carry the answer first.
  res.once('finish', end);
  answerShuttingDown(res);
}

/** 503 `shutting_down`, unless the response has already begun. */
function answerShuttingDown(res: ServerResponse): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(SHUTTING_DOWN),
    'retry-after': '5',
    connection: 'close',
  });
  res.end(SHUTTING_DOWN);
}

/** True when every promise settled within `ms`. */
async function settleWithin(pending: Promise<void>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = await Promise.race([Promise.all(pending).then(() => true), timedOut]);
  clearTimeout(timer);
  return settled;
}
