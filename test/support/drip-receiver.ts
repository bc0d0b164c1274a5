import http from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** One request the drip receiver got: when, on which path, how many bytes it dripped, and when it closed. */
export interface Drip {
  path: string;
  openedAt: number;
  dripped: number;
  closedAt: number | null;
}

/**
 * A webhook receiver that never finishes answering, one byte every `everyMs` (well under any idle
 * timeout): `/body…` answers `200` headers, then a chunked body that never ends; `/head…` sends the
 * status line, then one header whose value never ends, so no status is ever complete. Listens on
 * `host` (127.0.0.2 unless told), a receiver host apart from the other test receivers' 127.0.0.1.
 */
export async function startDripReceiver(everyMs = 2_000, host = '127.0.0.2') {
  const drips: Drip[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const drip: Drip = { path: request.url ?? '/', openedAt: Date.now(), dripped: 0, closedAt: null };
      drips.push(drip);
      const socket = response.socket!;
      sockets.add(socket);
      const byHead = drip.path.startsWith('/head');
      if (byHead) socket.write('HTTP/1.1 200 OK\r\nx-drip: ');
      else response.writeHead(200, { 'content-type': 'text/plain' }).flushHeaders();
      const timer = setInterval(() => {
        drip.dripped += 1;
        if (byHead) socket.write('a');
        else response.write('a');
      }, everyMs);
      socket.on('close', () => {
        clearInterval(timer);
        sockets.delete(socket);
        drip.closedAt = Date.now();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    drips,
    /** Requests being dripped to now. */
    open: () => drips.filter((drip) => drip.closedAt === null).length,
    /** The most requests of `which` dripped to at once. */
    peak(which: (drip: Drip) => boolean = () => true): number {
      const mine = drips.filter(which);
      const openAt = (at: number) =>
        mine.filter((drip) => drip.openedAt <= at && (drip.closedAt ?? Infinity) > at).length;
      return Math.max(0, ...mine.map((drip) => openAt(drip.openedAt)));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
