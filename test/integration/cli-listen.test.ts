import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hookgate } from '../../clients/typescript/src/index';
import { hookgateSignature } from '../../lambdas/domain/signing';
import { findDestinationConnection, insertListenConnection } from '../../lambdas/listen/record';
import { hashApiKey } from '../../lambdas/shared/secrets';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { openPortalSession } from '../fixtures/portal';
import { eventually, startSink, type Sink } from '../fixtures/sink';

/**
 * `hookgate listen` as a developer runs it: `bin/hookgate.mjs listen PORT` in a child process against
 * a real local gateway (its WebSocket server and the deliver function's PostToConnection included),
 * forwarding to a local server of the test's (the sink). Deliveries go through the normal pipeline, so
 * the attempts, the retries and the signature are the pipeline's.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const { call } = gatewayWithSinkForFile();

let home: string;
let key: string;
let hookgate: Hookgate;
let local: Sink;

interface Listener {
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  signal: (name: NodeJS.Signals) => void;
}

function run(args: readonly string[], env: Record<string, string> = {}): Listener {
  const { HOOKGATE_URL: _u, HOOKGATE_API_KEY: _k, ...rest } = process.env;
  const child = spawn(process.execPath, [join(root, 'bin/hookgate.mjs'), ...args], {
    env: { ...rest, HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), HOOKGATE_URL: hookgate.baseUrl, HOOKGATE_API_KEY: key, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { stdout: () => stdout, stderr: () => stderr, exited, signal: (name) => child.kill(name) };
}

/** A listen that has connected its WebSocket. */
async function listening(args: readonly string[]): Promise<Listener> {
  const listener = run(['listen', ...args]);
  await eventually(async () => listener.stderr(), (text) => text.includes('Connected'), 30_000);
  return listener;
}

const destinationsOfType = async (type: string) => (await hookgate.destinations.list()).filter((d) => d.type === type);

async function publish(eventType: string, payload: unknown, customer?: string) {
  return hookgate.outboundEvents.publish({ event_type: eventType, payload, customer } as Parameters<Hookgate['outboundEvents']['publish']>[0]);
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookgate-listen-home-'));
  ({ key } = await createAccount(call, { name: 'Listen' }));
  hookgate = typedClient(call, key);
  local = await startSink();
});
afterAll(async () => {
  await local?.close();
  await rm(home, { recursive: true, force: true });
});

describe('hookgate listen', () => {
  it('forwards a published event to the local port, signed; the attempt shows the local answer; a local 500 is retried; Ctrl-C removes the route and exits 0', async () => {
    let answers = 0;
    local.respondWith((_request, res) => {
      answers += 1;
      // The first try fails locally: the pipeline retries it, as for any destination.
      if (answers === 1) res.writeHead(500, { 'content-type': 'text/plain' }).end('local boom');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('local ok');
    });
    const before = local.received.length;
    const listener = await listening([local.url.split(':').pop() ?? '', '--events', 'listen.*']);
    const [cli] = await destinationsOfType('cli');
    expect(cli).toMatchObject({ type: 'cli', name: 'hookgate listen', customer: null });
    const routes = (await hookgate.routes.list()).filter((r) => r.destination_id === cli?.id);
    expect(routes.map((r) => r.event_type_pattern)).toEqual(['listen.*']);

    const published = await publish('listen.tested', { hello: 'local' });
    await local.waitFor(before + 2, 30_000);
    const request = local.received[before];
    expect(request?.method).toBe('POST');
    expect(JSON.parse(request?.body.toString() ?? '')).toEqual({ hello: 'local' });
    // Signed with the destination's secret, as any delivery is.
    const secret = (await hookgate.destinations.get(cli?.id ?? '')).signing_secret;
    const header = String(request?.headers['webhook-signature']);
    const timestamp = Number(/t=(\d+)/.exec(header)?.[1]);
    expect(header).toBe(hookgateSignature(request?.body ?? Buffer.alloc(0), timestamp, [secret]));

    const detail = await eventually(
      () => hookgate.outboundEvents.get(published.id),
      (d) => d.event.status === 'delivered',
      30_000,
    );
    expect(detail.attempts.map((a) => [a.attempt_number, a.outcome, a.response_status, a.response_body])).toEqual([
      [1, 'http_error', 500, 'local boom'],
      [2, 'success', 200, 'local ok'],
    ]);
    // One line per delivery: time, event type, id, attempt, local status, duration.
    await eventually(async () => listener.stdout(), (text) => text.split('\n').filter(Boolean).length >= 2);
    const lines = listener.stdout().trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`listen\\.tested\\s+${published.id}\\s+#1\\s+500\\s+\\d+ ms$`));
    expect(lines[1]).toMatch(new RegExp(`listen\\.tested\\s+${published.id}\\s+#2\\s+200\\s+\\d+ ms$`));

    listener.signal('SIGINT');
    expect(await listener.exited).toBe(0);
    expect(await destinationsOfType('cli')).toEqual([]);
    expect((await hookgate.routes.list()).filter((r) => r.destination_id === cli?.id)).toEqual([]);
  }, 90_000);

  it('a delivery made while the CLI is away waits as a retry and reaches it when it comes back with the same session', async () => {
    local.respondWith((_request, res) => res.writeHead(204).end());
    const first = await listening([local.url, '--json']);
    const [cli] = await destinationsOfType('cli');
    // Killed: no clean exit, so the session, its destination and its route stay.
    first.signal('SIGKILL');
    await first.exited;
    const published = await publish('listen.away', { n: 1 });
    const failed = await eventually(
      () => hookgate.outboundEvents.get(published.id),
      (d) => d.attempts.length >= 1,
      30_000,
    );
    expect(failed.attempts[0]).toMatchObject({ outcome: 'network_error', response_status: null });
    expect(failed.attempts[0]?.error).toMatch(/no hookgate listen is connected|the hookgate listen connection is gone/);

    const second = await listening([local.url, '--json']);
    expect(second.stderr()).toContain('Resumed listen session');
    expect((await destinationsOfType('cli')).map((d) => d.id)).toEqual([cli?.id]);
    const delivered = await eventually(
      () => hookgate.outboundEvents.get(published.id),
      (d) => d.event.status === 'delivered',
      30_000,
    );
    expect(delivered.attempts.at(-1)).toMatchObject({ outcome: 'success', response_status: 204 });
    await eventually(async () => second.stdout(), (text) => text.includes(published.id));
    const printed = second.stdout().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(printed.at(-1)).toMatchObject({ event_id: published.id, event_type: 'listen.away', status: 204, error: null });
    second.signal('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await destinationsOfType('cli')).toEqual([]);
  }, 90_000);

  it('prints the session\'s signing secret; --print-secret prints only it, leaves the session open, and a listen of the same target resumes it', async () => {
    local.respondWith((_request, res) => res.writeHead(204).end());
    const target = `${local.url}/print-secret`;
    const printed = run(['listen', target, '--print-secret', '--events', 'listen.secret']);
    expect(await printed.exited).toBe(0);
    const secret = printed.stdout();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    const [cli] = await destinationsOfType('cli');
    expect((await hookgate.destinations.get(cli?.id ?? '')).signing_secret).toBe(secret.trim());

    const asJson = run(['listen', target, '--print-secret', '--json', '--events', 'listen.secret']);
    expect(await asJson.exited).toBe(0);
    expect(JSON.parse(asJson.stdout())).toEqual({ signing_secret: secret.trim() });

    const listener = await listening([target, '--events', 'listen.secret']);
    expect(listener.stderr()).toContain('Resumed listen session');
    expect(listener.stderr()).toContain(`Signing secret: ${secret.trim()} (verify deliveries with it)`);
    expect(listener.stderr()).not.toContain('warning');
    expect((await destinationsOfType('cli')).map((d) => d.id)).toEqual([cli?.id]);
    // The secret printed is the one the deliveries are signed with.
    const before = local.received.length;
    await publish('listen.secret', { n: 1 });
    await local.waitFor(before + 1, 30_000);
    const request = local.received[before];
    const header = String(request?.headers['webhook-signature']);
    expect(header).toBe(hookgateSignature(request?.body ?? Buffer.alloc(0), Number(/t=(\d+)/.exec(header)?.[1]), [secret.trim()]));
    listener.signal('SIGINT');
    expect(await listener.exited).toBe(0);
    expect(await destinationsOfType('cli')).toEqual([]);
  }, 60_000);

  it('warns when the port is the gateway\'s own, for its API and for its listen WebSocket, and listens all the same', async () => {
    const gatewayPort = new URL(hookgate.baseUrl).port;
    const listener = await listening([gatewayPort, '--events', 'listen.self']);
    expect(listener.stderr()).toContain(
      `hookgate: warning: http://127.0.0.1:${gatewayPort} is the gateway's own address (${hookgate.baseUrl}): deliveries would go to the gateway, not to your app`,
    );
    listener.signal('SIGINT');
    expect(await listener.exited).toBe(0);
    const session = await hookgate.listenSessions.open({ session_id: 'websocket-port-session' });
    const websocketPort = new URL(session.websocket_url ?? '').port;
    await hookgate.listenSessions.close(session.session_id);
    const printed = run(['listen', `http://localhost:${websocketPort}`, '--print-secret']);
    expect(await printed.exited).toBe(0);
    expect(printed.stderr()).toContain(`hookgate: warning: http://localhost:${websocketPort} is the gateway's own address (${session.websocket_url})`);
    expect(printed.stdout()).toMatch(/^whsec_\S+\n$/);
    for (const d of await destinationsOfType('cli')) expect((await call('DELETE', `/v1/destinations/${d.id}`, { key })).status).toBe(204);
  }, 60_000);

  it('a local server that is not there is a network error on the attempt, naming it', async () => {
    const closed = await startSink();
    await closed.close();
    const port = closed.url.split(':').pop() ?? '';
    const listener = await listening([port, '--events', 'listen.nobody']);
    const published = await publish('listen.nobody', { n: 2 });
    const detail = await eventually(
      () => hookgate.outboundEvents.get(published.id),
      (d) => d.attempts.length >= 1,
      30_000,
    );
    expect(detail.attempts[0]).toMatchObject({ outcome: 'network_error', response_status: null });
    expect(detail.attempts[0]?.error).toBe(`local: http://127.0.0.1:${port}: ECONNREFUSED`);
    listener.signal('SIGINT');
    expect(await listener.exited).toBe(0);
  }, 60_000);

  it('--customer receives what that customer’s endpoints receive: only events addressed to it', async () => {
    local.respondWith((_request, res) => res.writeHead(200).end());
    const listener = await listening([local.url, '--customer', 'cus_listen', '--events', 'listen.customer', '--json']);
    const [cli] = await destinationsOfType('cli');
    expect(cli?.customer).toBe('cus_listen');
    const theirs = await publish('listen.customer', { to: 'them' }, 'cus_listen');
    const others = await publish('listen.customer', { to: 'others' }, 'cus_other');
    await eventually(async () => listener.stdout(), (text) => text.includes(theirs.id));
    expect((await hookgate.outboundEvents.get(others.id)).event.deliveries).toEqual([]);
    expect(listener.stdout()).not.toContain(others.id);
    // The developer's session is not the customer's endpoint: its portal shows neither it nor what it received.
    const { secret } = await openPortalSession(call, key, 'cus_listen');
    const seen = await call('GET', `/v1/portal/events/${theirs.id}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(seen.status).toBe(404);
    listener.signal('SIGINT');
    expect(await listener.exited).toBe(0);
  }, 60_000);

  it('a connection API Gateway no longer has (GoneException) is a failed try, retried, and forgotten', async () => {
    const session = await hookgate.listenSessions.open({ session_id: 'gone-connection-session', event_type_pattern: 'listen.gone' });
    const { id: accountId } = await hookgate.account.get();
    // As if the CLI's connection dropped without a $disconnect: the table still names it.
    await insertListenConnection({
      account_id: accountId,
      destination_id: session.destination_id,
      connection_id: 'dGhpcy1pcy1nb25l',
      connected_at: new Date().toISOString(),
      key_hash: hashApiKey(key),
    });
    const published = await publish('listen.gone', { n: 3 });
    const detail = await eventually(
      () => hookgate.outboundEvents.get(published.id),
      (d) => d.attempts.length >= 2,
      30_000,
    );
    expect(detail.attempts.map((a) => [a.outcome, a.error])).toEqual([
      ['network_error', 'the hookgate listen connection is gone'],
      ['network_error', 'no hookgate listen is connected to this destination'],
    ]);
    expect(await findDestinationConnection(accountId, session.destination_id)).toBeUndefined();
    await hookgate.listenSessions.close(session.session_id);
  }, 60_000);

  it('only the key’s own account connects to a session: another account’s key and a key that is none are refused', async () => {
    const session = await hookgate.listenSessions.open({ session_id: 'owner-only-session' });
    const opens = (apiKey: string) =>
      new Promise<boolean>((resolve) => {
        const ws = new WebSocket(`${session.websocket_url}?session=${session.session_id}`, { headers: { authorization: `Bearer ${apiKey}` } } as unknown as string[]);
        ws.addEventListener('open', () => (ws.close(), resolve(true)));
        ws.addEventListener('error', () => resolve(false));
      });
    const { key: otherKey } = await createAccount(call, { name: 'Other' });
    expect(await opens(otherKey)).toBe(false);
    expect(await opens(`hk_${'x'.repeat(43)}`)).toBe(false);
    expect(await opens(key)).toBe(true);
    // A key in the URL is not taken (access logs would keep it), even the account's own.
    const inUrl = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(`${session.websocket_url}?session=${session.session_id}&api_key=${key}`);
      ws.addEventListener('open', () => (ws.close(), resolve(true)));
      ws.addEventListener('error', () => resolve(false));
    });
    expect(inUrl).toBe(false);
    // The other account has no session of that id: its own would be a destination of its own.
    const theirs = await typedClient(call, otherKey).listenSessions.open({ session_id: 'owner-only-session' });
    expect(theirs).toMatchObject({ resumed: false });
    expect(theirs.destination_id).not.toBe(session.destination_id);
    await hookgate.listenSessions.close(session.session_id);
    expect(await destinationsOfType('cli')).toEqual([]);
  });

  it('revoking the key that connected closes its connection at once, before any try, and no delivery reaches the CLI', async () => {
    const spare = await call('POST', '/v1/api-keys', { key, body: { name: 'listen-spare' } });
    expect(spare.status, spare.text).toBe(201);
    const listener = run(['listen', local.url.split(':').pop() ?? '', '--events', 'listen.revoked'], { HOOKGATE_API_KEY: spare.json.data.key });
    await eventually(async () => listener.stderr(), (text) => text.includes('Connected'), 30_000);
    const first = await publish('listen.revoked', { n: 1 });
    await eventually(async () => listener.stdout(), (text) => text.includes(first.id));
    // The revoke itself closes the socket (the api function's DeleteConnection, which its role must allow).
    expect((await call('DELETE', `/v1/api-keys/${spare.json.data.id}`, { key })).status).toBe(204);
    await eventually(async () => listener.stderr(), (text) => text.includes('disconnected'), 5_000);

    const second = await publish('listen.revoked', { n: 2 });
    const detail = await eventually(() => hookgate.outboundEvents.get(second.id), (d) => d.attempts.length >= 1, 30_000);
    expect(detail.attempts[0]?.outcome).toBe('network_error');
    expect(listener.stdout()).not.toContain(second.id);
    listener.signal('SIGINT');
    await listener.exited;
    // Its revoked key cannot close the session on the way out: the account's key does.
    for (const d of await destinationsOfType('cli')) expect((await call('DELETE', `/v1/destinations/${d.id}`, { key })).status).toBe(204);
  }, 60_000);

  it('exit codes: 2 for a bad port or URL, 3 without a key or with a refused one, 1 for an unknown source', async () => {
    const badPort = run(['listen', '70000']);
    expect(await badPort.exited).toBe(2);
    expect(badPort.stderr()).toContain('PORT_OR_URL: 70000 is not a port');
    const badUrl = run(['listen', 'ftp://example.com']);
    expect(await badUrl.exited).toBe(2);
    const noKey = run(['listen', '3000'], { HOOKGATE_API_KEY: '' });
    expect(await noKey.exited).toBe(3);
    const refused = run(['listen', '3000'], { HOOKGATE_API_KEY: `hk_${'x'.repeat(43)}` });
    expect(await refused.exited).toBe(3);
    const unknownSource = run(['listen', '3000', '--source', '01970c6e-6a00-7b11-a2c3-4d5e6f708192', '--json']);
    expect(await unknownSource.exited).toBe(1);
    expect(JSON.parse(unknownSource.stdout())).toEqual({ error: '400 source_id does not match a source of this account', exit_code: 1 });
    expect(await destinationsOfType('cli')).toEqual([]);
  }, 60_000);
});
