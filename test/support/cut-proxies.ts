import { createServer as createHttpServer } from 'node:http';
import net from 'node:net';

/**
 * A TCP proxy in front of the test database server that a test can cut (every connection dropped, new
 * ones refused: the database unreachable, as when its server stops) and restore on the same port.
 */
export interface DatabaseProxy {
  /** The database URI through the proxy. */
  uri: string;
  cut(): void;
  restore(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDatabaseProxy(targetUri: string): Promise<DatabaseProxy> {
  const target = new URL(targetUri.replace(/^mongodb:/, 'http:'));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const cut = () => {
    if (server.listening) server.close();
    for (const socket of sockets) socket.destroy();
  };
  return {
    uri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    cut,
    restore: () => listen(port),
    stop: async () => {
      cut();
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

/**
 * An HTTP front for the TikTok emulator that calls `onRequest` with the path of each request before it
 * forwards it, and answers with the emulator's answer: a test acts at the exact moment a call leaves.
 */
export async function startTikTokFront(
  emulatorUrl: string,
  onRequest: (path: string) => void,
): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const url = new URL(request.url ?? '/', emulatorUrl);
        onRequest(url.pathname);
        const headers = Object.fromEntries(
          Object.entries(request.headers).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
          ),
        );
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(url, { method: request.method, headers, body });
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      })().catch((error: unknown) => {
        response.writeHead(502).end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
