import { describe, expect, it } from 'vitest';
import { eventPartition } from '../../lambdas/events/record';
import { getRawItem } from '../../lambdas/store/table';
import { PARTITION_LOAD_ENV, readPartitionLoad } from '../../local/partition-load';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// The partition-load meter on the handlers' own table client: what an event's accept, delivery and
// settlement charge, priced on the items as they were before and after each write.

const { call, sink } = gatewayWithSinkForFile({ [PARTITION_LOAD_ENV]: '1' });

describe('the partition-load meter', () => {
  it('charges an index only for the entries a write moves, and leaves an operator’s reads out', async () => {
    const { key, accountId, source } = await accountWithSource(call);
    // A reading counts whole seconds: this one starts on a fresh second, after the account's creation.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const since = Date.now();
    // Each raises the account item's routing stamp: an update that leaves its work index entry as it was.
    const dest = await addDestination(call, key, { url: `${sink.url}/hooks` });
    await addRoute(call, key, { destination_id: dest.id });
    const id = (await ingest(call, source.path_token, JSON.stringify({ n: 1 }))).json.data.id as string;
    await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);

    const load = await readPartitionLoad(['main'], { since });
    expect(load.unmetered).toBe(0);
    const shards = load.partitions.filter((p) => p.index === 'gsi1' && p.pk.startsWith(`ACCT#${accountId}#`));
    // One list entry for the event, however often its status item is rewritten after.
    expect(shards.map((p) => p.wcu)).toEqual([1]);
    expect(load.partitions.find((p) => p.index === undefined && p.pk === `ACCT#${accountId}`)?.wcu).toBeGreaterThan(0);
    expect(load.partitions.filter((p) => p.index === 'gsi2' && p.wcu > 0)).toEqual([]);
    const eventLoad = (partitions: typeof load.partitions) => partitions.find((p) => p.index === undefined && p.pk === eventPartition(accountId, id));
    expect(eventLoad(load.partitions)?.wcu).toBeGreaterThan(0);

    // The same client, outside any function: the runtime's and an operator's reads are not the functions' load.
    // (A key of its own: the deliver side may still read the event's partition after it shows delivered.)
    const operatorKey = `${eventPartition(accountId, id)}#OPERATOR`;
    await getRawItem({ pk: operatorKey, sk: 'EVENT' });
    expect((await readPartitionLoad(['main'], { since })).partitions.filter((p) => p.pk === operatorKey)).toEqual([]);
  });
});
