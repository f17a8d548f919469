import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../lambdas/store/client';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';
import { injectFault, receivedIds } from './helpers';
import { recordFigures } from './summary';

// The gateway caches an account's routing table and a source's token lookup for a few seconds, and a
// change made through the same process forgets them at once. The worst moment for that: a read that
// began before the change and ends after it. That read must not put the old value back.

const SOURCE = 'stale-cache';
let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  env = await bootGatewayWithSink({ HOOKGATE_ROUTE_CACHE_SECONDS: '30' });
  ({ call, sink } = env);
});
afterAll(() => env?.stop());

/**
 * Lets the first matching read reach DynamoDB at once but holds its answer until `release()`: a read
 * that saw the table before a change and comes back after it.
 */
function holdFirstRead(command: string, matches: (input: Record<string, unknown>) => boolean) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  let reached!: () => void;
  const heldRead = new Promise<void>((resolve) => (reached = resolve));
  const fault = injectFault(documentClient(), [command], async (input, pass) => {
    if (held || !matches(input)) return undefined;
    held = true;
    const out = await pass();
    reached();
    await released;
    return out.output;
  });
  return { heldRead, release, restore: () => fault.restore() };
}

describe('a change made while a cached read is in flight', () => {
  it('a route created during a routing-table read applies to the next event', async () => {
    const { key, accountId, source } = await accountWithSource(call);
    await addRoute(call, key, { destination_id: (await addDestination(call, key, { url: `${sink.url}/old-route` })).id });
    const newDestination = await addDestination(call, key, { url: `${sink.url}/new-route` }); // forgets the table

    const hold = holdFirstRead('QueryCommand', (input) => (input.ExpressionAttributeValues as Record<string, unknown>)?.[':pk'] === `ACCT#${accountId}`);
    let first;
    try {
      const inFlight = ingest(call, source.path_token, '{"n":1}'); // reads the routing table: held
      await hold.heldRead;
      await addRoute(call, key, { destination_id: newDestination.id }); // the change, while the read is out
      hold.release();
      first = await inFlight;
    } finally {
      hold.restore();
    }
    expect(first.status).toBe(202);
    const second = await ingest(call, source.path_token, '{"n":2}');
    recordFigures(SOURCE, { faultsInjected: 1 });
    const detail = await eventually(() => eventDetail(call, key, second.json.data.id), (d) => d.event.status === 'delivered');
    expect(detail.attempts).toHaveLength(2); // the old route and the new one
    await eventually(async () => receivedIds(sink, '/new-route'), (ids) => ids.has(second.json.data.id));
    recordFigures(SOURCE, { accepted: 1, delivered: 1 });
  });

  it('signature verification switched on during a token lookup is enforced on the next request', async () => {
    const { key, source } = await accountWithSource(call);
    const hold = holdFirstRead('GetItemCommand', (input) => String((input.Key as Record<string, unknown>)?.pk).startsWith('SOURCETOKEN#'));
    let first;
    try {
      const inFlight = ingest(call, source.path_token, '{"unsigned":1}'); // looks the token up: held
      await hold.heldRead;
      const patched = await call('PATCH', `/v1/sources/${source.id}`, { key, body: { verification: { provider: 'github', secret: 'now-signed' } } });
      expect(patched.status).toBe(200);
      hold.release();
      first = await inFlight;
    } finally {
      hold.restore();
    }
    expect(first.status).toBe(202); // it began before the change
    const second = await ingest(call, source.path_token, '{"unsigned":2}');
    recordFigures(SOURCE, { faultsInjected: 1, badInputsTried: 1, badInput5xx: second.status >= 500 ? 1 : 0 });
    expect(second.status).toBe(401);
    expect(second.json.error).toBe('invalid signature');
  });
});
