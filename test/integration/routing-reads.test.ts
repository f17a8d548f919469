import { describe, expect, it } from 'vitest';
import { findDestination, insertDestination, updateDestination } from '../../lambdas/destinations/record';
import { newId, newSigningSecret } from '../../lambdas/shared/secrets';
import { ACCOUNT_SK, accountPartition } from '../../lambdas/store/keys';
import { queryAll } from '../../lambdas/store/table';
import { itemSize, readUnits } from '../../local/ddb-units';
import { PARTITION_LOAD_ENV, readPartitionLoad } from '../../local/partition-load';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// Routing is read per destination and route, by version: a change to one destination costs the
// functions a read of that destination (and of the account's stamp), not of the account's routing
// range. Measured with the partition-load meter on the account's partition, where every routing item
// lives; the changes are written through the store from the test, outside any function (unmetered),
// as another function would write them.

const IDLE_DESTINATIONS = 150;
const STAMP_REUSE_MS = 1000;
// Long enough that no destination a delivery cached expires during the test: only versions invalidate.
const { call, sink } = gatewayWithSinkForFile({ [PARTITION_LOAD_ENV]: '1', HOOKGATE_ROUTE_CACHE_SECONDS: '300' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A reading counts whole seconds: the next one starts on a fresh second. */
const freshSecond = () => sleep(1000 - (Date.now() % 1000));

describe('a routing change', () => {
  it('costs the functions a read of what changed, not of the routing range', async () => {
    const { key, accountId, source } = await accountWithSource(call);
    const live = await addDestination(call, key, { url: `${sink.url}/live` });
    await addRoute(call, key, { destination_id: live.id });
    const template = await findDestination(accountId, live.id);
    if (!template) throw new Error('the routed destination is not stored');
    const idle: string[] = [];
    for (let i = 0; i < IDLE_DESTINATIONS; i++) {
      const at = new Date().toISOString();
      const id = newId();
      await insertDestination({ ...template, id, name: `idle ${i}`, url: `${sink.url}/idle/${i}`, signing_secret: newSigningSecret(), created_at: at, updated_at: at });
      idle.push(id);
    }
    const delivered = async (n: number) => {
      const id = (await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string;
      const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);
      expect(detail.event.deliveries).toEqual([expect.objectContaining({ destination_id: live.id, status: 'delivered' })]);
    };
    // Warm: ingest's routes, and the delivery's destination (twice: the first success writes its breaker).
    await delivered(0);
    await delivered(1);

    // What one read of the account's routing range (the account item and everything under `ACCOUNT#`,
    // as every process made on every change) costs.
    const range = await queryAll({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':from': ACCOUNT_SK, ':to': `${ACCOUNT_SK}#\uffff` },
    });
    const wholeRange = readUnits(range.reduce((sum, item) => sum + itemSize(item), 0), true);
    expect(wholeRange).toBeGreaterThan(20);

    const accountReads = async (since: number) =>
      (await readPartitionLoad(['main'], { since })).partitions.find((p) => p.index === undefined && p.pk === accountPartition(accountId))?.rcu ?? 0;

    // A destination no route names: ingest and the delivery read the stamp, nothing else of the account.
    await freshSecond();
    let since = Date.now();
    await updateDestination(accountId, idle[7] as string, { name: 'renamed', updated_at: new Date().toISOString() });
    await sleep(STAMP_REUSE_MS);
    await delivered(2);
    // The stamp is read again each second a function works, so the figure grows on a slow machine: it is
    // reported, and the bound is the guarantee, never a read of the routing range.
    const unrouted = await accountReads(since);
    console.info(`routing-reads: a change to an unrouted destination cost ${unrouted} RCU of the account's partition (its routing range: ${wholeRange})`);
    expect(unrouted).toBeLessThan(wholeRange);

    // The routed destination: the stamp, that destination for ingest, and it with its breaker for the delivery.
    await freshSecond();
    since = Date.now();
    await updateDestination(accountId, live.id, { name: 'live, renamed', updated_at: new Date().toISOString() });
    await sleep(STAMP_REUSE_MS);
    await delivered(3);
    const routed = await accountReads(since);
    console.info(`routing-reads: a change to the routed destination cost ${routed} RCU of the account's partition (its routing range: ${wholeRange})`);
    expect(routed).toBeLessThan(wholeRange);
  });
});
