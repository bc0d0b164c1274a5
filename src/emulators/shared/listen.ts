import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';

/** An emulator's HTTP server, listening. */
export interface ListeningEmulator {
  /** `http://host:port` (an IPv6 host in brackets). */
  url: string;
  /** Closes the server and drops open connections (keep-alive clients would hold it open). */
  stop(this: void): Promise<void>;
}

/** Serves `app` on `host:port` (127.0.0.1 and a free port by default), for an emulator. */
export async function listenEmulator(app: Koa, options: { host?: string; port?: number }): Promise<ListeningEmulator> {
  const sockets = new Set<Socket>();
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** A request's whole body as text. */
export function readRequestText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
