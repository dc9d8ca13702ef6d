import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { gracefulClose } from './graceful-close.js';

describe('graceful close of the HTTP server', () => {
  let server: Server | undefined;
  afterEach(() => server?.closeAllConnections());

  it('lets the request in flight finish, and closes a socket that never sent a request without waiting for it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server = createServer((req, res) => {
      const answer = () => res.end(`answered ${req.url}`);
      if (req.url === '/slow') held.then(answer, answer);
      else answer();
    });
    server.headersTimeout = 66_000;
    server.keepAliveTimeout = 65_000;
    const close = gracefulClose(server);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    // A client that connects and says nothing (a browser's speculative preconnect).
    const silent = connect(port, '127.0.0.1');
    const silentClosed = new Promise<void>((r) => silent.on('close', () => r()));
    silent.on('error', () => undefined);
    await new Promise<void>((r) => silent.on('connect', () => r()));
    // A keep-alive client that has had its answer and stays idle.
    expect(await (await fetch(`http://127.0.0.1:${port}/quick`)).text()).toBe('answered /quick');
    const slow = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 50));
    // The grace is a minute: if close waited for the silent socket, the test would time out.
    const closing = close(60_000);
    await silentClosed;
    release();
    expect(await slow).toBe('answered /slow');
    await closing;
    expect(server.listening).toBe(false);
  }, 20_000);
});
