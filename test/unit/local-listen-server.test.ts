import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { KEEP_ALIVE_MESSAGE } from '../../lambdas/domain/listen';
import type { ListenHandler } from '../../local/handlers';
import { startListenServer, type ListenLimits, type ListenServer } from '../../local/listen-server';

/**
 * The local stand-in for API Gateway's WebSocket API of `hookgate listen`: which route each frame
 * reaches, and when it closes a connection, with a handler that accepts every connect and records
 * what it is invoked with.
 */
let server: ListenServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

async function start(limits?: ListenLimits) {
  const invoked: Array<{ route: string; body?: string }> = [];
  const handler: ListenHandler = async (event) => {
    invoked.push({ route: event.requestContext.routeKey, body: 'body' in event ? event.body : undefined });
    return { statusCode: 200 };
  };
  server = await startListenServer(0, () => handler, limits);
  const client = new WebSocket(`${server.url}?session=local-test-session`);
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  const closed = new Promise<{ code: number; at: number }>((resolve) => client.once('close', (code) => resolve({ code, at: Date.now() })));
  return { invoked, client, closed, openedAt: Date.now() };
}

describe('local listen server: route selection ($request.body.action, routes response and $default)', () => {
  it('sends the keep-alive to $default, an answer to response, and anything else to $default; ping frames invoke nothing', async () => {
    const { invoked, client } = await start();
    const answer = JSON.stringify({ action: 'response', request_id: 'r-1', status: 200 });
    client.send(KEEP_ALIVE_MESSAGE);
    client.send(answer);
    client.send('not json');
    client.ping();
    // Frames are handled in order: once the one sent after the ping has arrived, the ping had its chance.
    client.send('after the ping');
    await expect.poll(() => invoked.at(-1)?.body).toBe('after the ping');
    expect(invoked).toEqual([
      { route: '$connect', body: undefined },
      { route: '$default', body: KEEP_ALIVE_MESSAGE },
      { route: 'response', body: answer },
      { route: '$default', body: 'not json' },
      { route: '$default', body: 'after the ping' },
    ]);
  });
});

describe('local listen server: API Gateway’s connection limits', () => {
  it('closes a connection whose client sent no message for the idle timeout, ping frames or not, as going away', async () => {
    const { client, closed, openedAt, invoked } = await start({ idleTimeoutMs: 400, maxConnectionMs: 60_000 });
    const pinging = setInterval(() => client.ping(), 100);
    const { code, at } = await closed;
    clearInterval(pinging);
    expect(code).toBe(1001);
    expect(at - openedAt).toBeGreaterThanOrEqual(350);
    await expect.poll(() => invoked.at(-1)?.route).toBe('$disconnect');
  });

  it('keeps a connection whose client sends the keep-alive inside the idle timeout', async () => {
    // The server's clock is moved, not waited for: a stalled machine cannot starve the keep-alive.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { client, closed, invoked } = await start({ idleTimeoutMs: 400, maxConnectionMs: 60_000 });
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    for (let i = 1; i <= 5; i += 1) {
      vi.advanceTimersByTime(300);
      client.send(KEEP_ALIVE_MESSAGE);
      await expect.poll(() => invoked.filter((call) => call.body === KEEP_ALIVE_MESSAGE).length).toBe(i);
    }
    expect(isClosed).toBe(false); // 1.5 s in all, never 400 ms without a keep-alive
    // The idle timer still runs: 400 ms without one closes the connection.
    vi.advanceTimersByTime(400);
    expect((await closed).code).toBe(1001);
  });

  it('closes every connection at the connection limit, however busy', async () => {
    const { client, closed, openedAt } = await start({ idleTimeoutMs: 60_000, maxConnectionMs: 600 });
    const keepingAlive = setInterval(() => client.send(KEEP_ALIVE_MESSAGE), 100);
    const { code, at } = await closed;
    clearInterval(keepingAlive);
    expect(code).toBe(1001);
    expect(at - openedAt).toBeGreaterThanOrEqual(550);
  });
});

describe('local listen server: a client gone during $connect', () => {
  it('a connection reset while its $connect still runs is dropped, and the runtime goes on serving', async () => {
    let release: () => void = () => undefined;
    const connecting = new Promise<void>((resolve) => (release = resolve));
    let connects = 0;
    const handler: ListenHandler = async (event) => {
      if (event.requestContext.routeKey === '$connect' && connects++ === 0) await connecting;
      return { statusCode: 200 };
    };
    server = await startListenServer(0, () => handler);
    const { port } = new URL(server.url);
    // A raw upgrade request, reset by the client while the handler holds its $connect.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /listen?session=s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    await expect.poll(() => connects).toBe(1);
    socket.resetAndDestroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    // The next client connects as usual (an uncaught ECONNRESET would have failed the run before this).
    const client = new WebSocket(`${server.url}?session=next`);
    await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
    client.close();
    expect(connects).toBe(2);
  });
});
