import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/** A listening HTTP server with an orderly stop. */
export interface RunningHttpServer {
  readonly port: number;
  readonly url: string;
  /** Stops accepting connections, lets in-flight requests finish (bounded), then closes the rest. */
  stop(): Promise<void>;
}

const IN_FLIGHT_GRACE_MS = 10_000;

/** Starts `app` on host:port (port 0 picks a free one). */
export async function startHttpServer(app: Koa, options: { host: string; port: number }): Promise<RunningHttpServer> {
  const server: Server = app.listen({ host: options.host, port: options.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const displayHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  let stopping: Promise<void> | undefined;

  return {
    port,
    url: `http://${displayHost}:${port}`,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), IN_FLIGHT_GRACE_MS);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return stopping;
    },
  };
}
