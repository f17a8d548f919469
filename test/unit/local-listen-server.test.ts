import { afterEach, describe, expect, it } from 'vitest';
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('local listen server: route selection ($request.body.action, routes response and $default)', () => {
  it('sends the keep-alive to $default, an answer to response, and anything else to $default; ping frames invoke nothing', async () => {
    const { invoked, client } = await start();
    const answer = JSON.stringify({ action: 'response', request_id: 'r-1', status: 200 });
    client.send(KEEP_ALIVE_MESSAGE);
    client.send(answer);
    client.send('not json');
    client.ping();
    await expect.poll(() => invoked.length).toBe(4);
    await sleep(100);
    expect(invoked).toEqual([
      { route: '$connect', body: undefined },
      { route: '$default', body: KEEP_ALIVE_MESSAGE },
      { route: 'response', body: answer },
      { route: '$default', body: 'not json' },
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
    const { client, closed } = await start({ idleTimeoutMs: 400, maxConnectionMs: 60_000 });
    const keepingAlive = setInterval(() => client.send(KEEP_ALIVE_MESSAGE), 100);
    const outcome = await Promise.race([closed.then(() => 'closed'), sleep(1500).then(() => 'open')]);
    clearInterval(keepingAlive);
    expect(outcome).toBe('open');
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
