import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { forgetRoutingTable } from '../../lambdas/store/routing-cache';
import { loadCurrentRoutingTable } from '../../lambdas/store/routing-table';
import { UNIT_ENV } from '../fixtures/apigw';

// The routing stamp an accept checks the cached routing table against: read eventually consistent and
// reused for a second per function instance, so a route written elsewhere applies within that second.
// The clock is the one loadCurrentRoutingTable takes; the table's own cache (5 s) outlives every case.

const ddb = mockClient(DynamoDBDocumentClient);
let stamp: number | undefined;

/** The table as DynamoDB holds it: the account item, stamped `stamp`, and nothing else in its range. */
function answerWithStamp(): void {
  const account = () => ({ pk: 'ACCT#a', sk: 'ACCOUNT', id: 'a', name: null, plan: 'free', retention_days: 1, created_at: 'x', updated_at: 'x', routing_version: stamp });
  ddb.on(GetCommand).callsFake(() => ({ Item: stamp === undefined ? undefined : account() }));
  ddb.on(QueryCommand).callsFake(() => ({ Items: stamp === undefined ? [] : [account()] }));
}

const stampReads = () => ddb.commandCalls(GetCommand).length;
const tableReads = () => ddb.commandCalls(QueryCommand).length;
let account = 0;
/** An account of its own per case: the caches live as long as the module. */
const nextAccount = () => `acct-${++account}`;

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  stamp = 1;
  answerWithStamp();
});
afterEach(() => {
  delete process.env.HOOKGATE_ROUTE_CACHE_SECONDS;
  resetConfigForTests();
});

describe('the routing stamp read by each accept', () => {
  it('is eventually consistent (half a read unit)', async () => {
    await loadCurrentRoutingTable(nextAccount(), 0);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.ConsistentRead).toBe(false);
  });

  it('is read once a second per instance, however many events arrive in it', async () => {
    const id = nextAccount();
    for (const at of [0, 10, 500, 999]) await loadCurrentRoutingTable(id, 10_000 + at);
    expect(stampReads()).toBe(1);
    await loadCurrentRoutingTable(id, 11_000);
    expect(stampReads()).toBe(2);
  });

  it('a route written by another function applies within the second: the next stamp read finds it', async () => {
    const id = nextAccount();
    expect((await loadCurrentRoutingTable(id, 0))?.version).toBe(1);
    stamp = 2; // another process raised it
    expect((await loadCurrentRoutingTable(id, 999))?.version).toBe(1);
    expect(tableReads()).toBe(1);
    expect((await loadCurrentRoutingTable(id, 1000))?.version).toBe(2);
    expect(tableReads()).toBe(2);
  });

  it('a write through this process applies at once (it forgets the stamp with the table)', async () => {
    const id = nextAccount();
    await loadCurrentRoutingTable(id, 0);
    stamp = 2;
    forgetRoutingTable(id);
    expect((await loadCurrentRoutingTable(id, 1))?.version).toBe(2);
  });

  it('is reused no longer than the table cache: HOOKGATE_ROUTE_CACHE_SECONDS=0 reads it every time', async () => {
    process.env.HOOKGATE_ROUTE_CACHE_SECONDS = '0';
    resetConfigForTests();
    const id = nextAccount();
    await loadCurrentRoutingTable(id, 0);
    await loadCurrentRoutingTable(id, 1);
    expect(stampReads()).toBe(2);
  });

  it('a stamp not found (an account created a moment ago, not yet replicated) is not reused: the consistent query decides', async () => {
    const id = nextAccount();
    ddb.on(GetCommand).resolvesOnce({}).callsFake(() => ({ Item: { pk: 'ACCT#a', sk: 'ACCOUNT', routing_version: stamp } }));
    expect((await loadCurrentRoutingTable(id, 0))?.version).toBe(1);
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input.ConsistentRead).toBe(true);
    await loadCurrentRoutingTable(id, 1);
    expect(stampReads()).toBe(2);
  });

  it('an account that does not exist has no routing table', async () => {
    stamp = undefined;
    expect(await loadCurrentRoutingTable(nextAccount(), 0)).toBeUndefined();
  });
});
