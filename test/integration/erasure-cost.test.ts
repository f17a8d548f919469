import { describe, expect, it } from 'vitest';
import { eventPartition } from '../../lambdas/events/record';
import { accountPartition } from '../../lambdas/store/keys';
import { PARTITION_LOAD_ENV, readPartitionLoad } from '../../local/partition-load';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount } from '../fixtures/http-client';
import { eventually } from '../fixtures/sink';

// An erasure finds its subject's events through their index entries, never by walking the account's
// events: measured with the partition-load meter, no partition of an event without the subject, and
// no page of the account's event list, is read while it runs.

const UNRELATED_EVENTS = 40;
const { call } = gatewayWithSinkForFile({ [PARTITION_LOAD_ENV]: '1', SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A reading counts whole seconds: the next one starts on a fresh second. */
const freshSecond = () => sleep(1000 - (Date.now() % 1000));

describe('an erasure’s reads', () => {
  it('touch the subject’s events and index only, however many other events the account has', async () => {
    const { key, accountId } = await createAccount(call);
    const publish = async (body: Record<string, unknown>) => String((await call('POST', '/v1/outbound-events', { key, body })).json.data.id);
    const unrelated: string[] = [];
    for (let i = 0; i < UNRELATED_EVENTS; i++) unrelated.push(await publish({ payload: { n: i } }));
    const theirs = [await publish({ payload: { n: 'a' }, subject: 'metered' }), await publish({ payload: { n: 'b' }, subject: 'metered' })];

    await freshSecond();
    const since = Date.now();
    const started = await call('POST', '/v1/erasures', { key, body: { subject: 'metered' } });
    const done = await eventually(async () => (await call('GET', `/v1/erasures/${started.json.data.id}`, { key })).json.data, (job) => job.status === 'done');
    expect(done).toMatchObject({ events: 2 });

    const reading = await readPartitionLoad(['main'], { since });
    const read = reading.partitions.filter((p) => p.rcu > 0 && p.pk.startsWith(accountPartition(accountId))).map((p) => p.pk);
    // Nothing of the account read from an index (the event list), and no unrelated event's partition.
    expect(reading.partitions.filter((p) => p.index !== undefined && p.pk.startsWith(accountPartition(accountId)))).toEqual([]);
    for (const id of unrelated) expect(read).not.toContain(eventPartition(accountId, id));
    for (const id of theirs) expect(read).toContain(eventPartition(accountId, id));
  });
});
