import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closing the HTTP server the way a stop should: requests in flight finish (up to `graceMs`),
 * every other socket is closed at once. `server.close()` alone ends idle keep-alive sockets
 * but waits for any socket it does not count as idle, such as one a client opened and never
 * sent a request on, until headersTimeout (66 s here) ends it; an open event stream holds it
 * for ever. Call it right after creating the server, before it accepts connections.
 */
export function gracefulClose(server: Server) {
  const busy = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.on('close', () => busy.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.on('close', () => {
      const n = (busy.get(socket) ?? 1) - 1;
      if (busy.has(socket)) busy.set(socket, n);
      // Stopping: a socket that has just answered its last request is not kept open.
      if (n === 0 && closing) socket.destroy();
    });
  });
  let closing = false;
  return async function close(graceMs: number): Promise<void> {
    closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const [socket, n] of busy) if (n === 0) socket.destroy();
    const grace = setTimeout(() => server.closeAllConnections(), graceMs);
    try {
      await closed;
    } finally {
      clearTimeout(grace);
    }
  };
}
