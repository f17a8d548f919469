import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { changeEntry, type RoutingChange } from '../../lambdas/domain/routing-changes';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { destinationRouting, loadCurrentRoutingTable } from '../../lambdas/store/routing-table';
import { routingWritten } from '../../lambdas/store/routing-writes';
import { UNIT_ENV } from '../fixtures/apigw';
import { destinationRecord, routeRecord } from '../fixtures/records';

// The routing stamp an accept checks its cached routes against: read eventually consistent and reused
// for a second per function instance, so a route written elsewhere applies within that second, and
// then only what the stamp's change log names is read again. The clock is the one
// loadCurrentRoutingTable takes; the routes' own cache outlives every case.

const ddb = mockClient(DynamoDBDocumentClient);
type Item = Record<string, unknown>;
/** The account's partition as DynamoDB holds it, by sort key; the account item is `ACCOUNT`. */
let items: Map<string, Item>;
let accountId: string;

const account = (): Item => ({ pk: `ACCT#${accountId}`, sk: 'ACCOUNT', id: accountId, name: null, plan: 'free', retention_days: 1, created_at: 'x', updated_at: 'x' });
/** Raises the stamp as another process's write would, naming `change` in the log unless `logged` is false. */
function changed(change: RoutingChange, logged = true): void {
  const item = items.get('ACCOUNT') ?? account();
  const version = Number(item.routing_version ?? 0) + 1;
  const log = (item.routing_changes as string[] | undefined) ?? [];
  items.set('ACCOUNT', { ...item, routing_version: version, routing_changes: logged ? [...log, changeEntry(change)] : [] });
}
function putDestination(id: string): void {
  items.set(`ACCOUNT#DEST#${id}`, { pk: `ACCT#${accountId}`, sk: `ACCOUNT#DEST#${id}`, ...destinationRecord({ id, account_id: accountId }) });
  changed({ kind: 'destination', id });
}
function putRoute(id: string, destinationId: string): void {
  items.set(`ACCOUNT#ROUTE#${id}`, { pk: `ACCT#${accountId}`, sk: `ACCOUNT#ROUTE#${id}`, ...routeRecord({ id, account_id: accountId, destination_id: destinationId }) });
  changed({ kind: 'route', id });
}

function answerFromItems(): void {
  ddb.on(GetCommand).callsFake((input: { Key: { sk: string } }) => ({ Item: items.get(input.Key.sk) }));
  ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: { ':prefix': string } }) => ({
    Items: [...items.values()].filter((item) => String(item.sk).startsWith(input.ExpressionAttributeValues[':prefix'])),
  }));
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Array<{ sk: string }> }> }) => ({
    Responses: Object.fromEntries(Object.entries(input.RequestItems).map(([table, { Keys }]) => [table, Keys.flatMap((key) => items.get(key.sk) ?? [])])),
  }));
}

const stampReads = () => ddb.commandCalls(GetCommand).filter((call) => call.args[0].input.ConsistentRead === false).length;
const wholeReads = () => ddb.commandCalls(QueryCommand).length;
/** The sort keys read by key, consistently, other than the account item's. */
const itemsRead = () =>
  [
    ...ddb.commandCalls(GetCommand).filter((call) => call.args[0].input.ConsistentRead !== false).map((call) => String(call.args[0].input.Key?.sk)),
    ...ddb.commandCalls(BatchGetCommand).flatMap((call) => Object.values(call.args[0].input.RequestItems ?? {}).flatMap((r) => (r.Keys ?? []).map((k) => String(k.sk)))),
  ].filter((sk) => sk !== 'ACCOUNT');
let n = 0;

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  // An account of its own per case: the caches live as long as the module.
  accountId = `acct-${++n}`;
  items = new Map();
  changed({ kind: 'route', id: 'none' });
  answerFromItems();
});
afterEach(() => {
  delete process.env.HOOKGATE_ROUTE_CACHE_SECONDS;
  resetConfigForTests();
});

describe('the routing stamp read by each accept', () => {
  it('is eventually consistent (half a read unit)', async () => {
    await loadCurrentRoutingTable(accountId, 0);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.ConsistentRead).toBe(false);
  });

  it('is read once a second per instance, however many events arrive in it', async () => {
    for (const at of [0, 10, 500, 999]) await loadCurrentRoutingTable(accountId, 10_000 + at);
    expect(stampReads()).toBe(1);
    await loadCurrentRoutingTable(accountId, 11_000);
    expect(stampReads()).toBe(2);
  });

  it('a route written by another function applies within the second: the next stamp read finds it', async () => {
    expect((await loadCurrentRoutingTable(accountId, 0))?.version).toBe(1);
    putDestination('d1');
    putRoute('r1', 'd1');
    expect((await loadCurrentRoutingTable(accountId, 999))?.routes).toEqual([]);
    const table = await loadCurrentRoutingTable(accountId, 1000);
    expect(table?.version).toBe(3);
    expect(table?.routes.map((r) => r.id)).toEqual(['r1']);
    expect(table?.destinations.get('d1')?.id).toBe('d1');
  });

  it('a write through this process applies at once (it forgets the stamp)', async () => {
    await loadCurrentRoutingTable(accountId, 0);
    putRoute('r1', 'none');
    routingWritten({ kind: 'account', accountId });
    expect((await loadCurrentRoutingTable(accountId, 1))?.version).toBe(2);
  });

  it('is reused no longer than the routes: HOOKGATE_ROUTE_CACHE_SECONDS=0 reads it every time', async () => {
    process.env.HOOKGATE_ROUTE_CACHE_SECONDS = '0';
    resetConfigForTests();
    await loadCurrentRoutingTable(accountId, 0);
    await loadCurrentRoutingTable(accountId, 1);
    expect(stampReads()).toBe(2);
  });

  it('a stamp not found (an account created a moment ago, not yet replicated) is not reused: a consistent read decides', async () => {
    ddb.on(GetCommand).resolvesOnce({}).callsFake((input: { Key: { sk: string } }) => ({ Item: items.get(input.Key.sk) }));
    expect((await loadCurrentRoutingTable(accountId, 0))?.version).toBe(1);
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input.ConsistentRead).toBe(true);
    await loadCurrentRoutingTable(accountId, 1);
    expect(stampReads()).toBe(2);
  });

  it('an account that does not exist has no routing table', async () => {
    items.clear();
    expect(await loadCurrentRoutingTable(accountId, 0)).toBeUndefined();
  });
});

describe('a change costs what changed', () => {
  beforeEach(async () => {
    putDestination('routed');
    putRoute('r1', 'routed');
    putDestination('idle');
    await loadCurrentRoutingTable(accountId, 0);
    ddb.resetHistory();
  });

  it('a destination no route names: the stamp alone', async () => {
    putDestination('idle');
    expect((await loadCurrentRoutingTable(accountId, 1000))?.version).toBe(5);
    expect(itemsRead()).toEqual([]);
    expect(wholeReads()).toBe(0);
  });

  it('a routed destination: that destination, consistently', async () => {
    putDestination('routed');
    await loadCurrentRoutingTable(accountId, 1000);
    expect(itemsRead()).toEqual(['ACCOUNT#DEST#routed']);
    expect(ddb.commandCalls(BatchGetCommand).every((call) => Object.values(call.args[0].input.RequestItems ?? {}).every((r) => r.ConsistentRead === true))).toBe(true);
  });

  it('a new route: that route and the destination it names', async () => {
    putRoute('r2', 'idle');
    const table = await loadCurrentRoutingTable(accountId, 1000);
    expect(itemsRead().sort()).toEqual(['ACCOUNT#DEST#idle', 'ACCOUNT#ROUTE#r2']);
    expect(table?.routes.map((r) => r.id).sort()).toEqual(['r1', 'r2']);
    expect([...(table?.destinations.keys() ?? [])].sort()).toEqual(['idle', 'routed']);
  });

  it('a deleted route: gone, and so is the destination only it named', async () => {
    items.delete('ACCOUNT#ROUTE#r1');
    changed({ kind: 'route', id: 'r1' });
    const table = await loadCurrentRoutingTable(accountId, 1000);
    expect(table?.routes).toEqual([]);
    expect(table?.destinations.size).toBe(0);
  });

  it('further behind than the log reaches: everything, once', async () => {
    changed({ kind: 'destination', id: 'idle' }, false);
    const table = await loadCurrentRoutingTable(accountId, 1000);
    expect(wholeReads()).toBe(1);
    expect(table?.routes.map((r) => r.id)).toEqual(['r1']);
    await loadCurrentRoutingTable(accountId, 1001);
    expect(wholeReads()).toBe(1);
  });
});

describe('a delivery reads its own destination', () => {
  it('its destination and breaker, consistently, and nothing else of the account', async () => {
    putDestination('d1');
    putDestination('d2');
    const { destination, breaker } = await destinationRouting(accountId, 'd1');
    expect(destination?.id).toBe('d1');
    expect(breaker).toMatchObject({ state: 'closed', version: 0 });
    expect(itemsRead().sort()).toEqual(['ACCOUNT#DEST#d1', 'ACCOUNT#HEALTH#d1']);
    expect(wholeReads()).toBe(0);
  });

  it('reuses it until the stamp names it, then reads it alone again', async () => {
    putDestination('d1');
    putDestination('d2');
    await destinationRouting(accountId, 'd1');
    putDestination('d2');
    routingWritten({ kind: 'account', accountId }); // the stamp read again now rather than a second later
    await destinationRouting(accountId, 'd1');
    expect(itemsRead()).toHaveLength(2);
    putDestination('d1');
    routingWritten({ kind: 'account', accountId });
    await destinationRouting(accountId, 'd1');
    expect(itemsRead()).toHaveLength(4);
  });

  it('a fresh read of a destination that exists reads it again', async () => {
    putDestination('d1');
    await destinationRouting(accountId, 'd1');
    await destinationRouting(accountId, 'd1', { fresh: true });
    expect(itemsRead()).toHaveLength(4);
  });

  it('remembers a destination that does not exist: deliveries to it read it once, until the stamp moves', async () => {
    for (let i = 0; i < 20; i++) {
      const { destination } = await destinationRouting(accountId, 'gone', { fresh: i % 2 === 1 });
      expect(destination).toBeUndefined();
    }
    expect(itemsRead()).toEqual(expect.arrayContaining(['ACCOUNT#DEST#gone']));
    expect(itemsRead()).toHaveLength(2);
    putDestination('gone'); // it could only reappear with a routing write
    routingWritten({ kind: 'account', accountId });
    expect((await destinationRouting(accountId, 'gone', { fresh: true })).destination?.id).toBe('gone');
  });
});
