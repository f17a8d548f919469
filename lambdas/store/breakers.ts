import { CLOSED_BREAKER, type BreakerState } from '../domain/breaker';
import { defineEntity } from './entity';
import { accountPartition, routingPrefix } from './keys';
import { breakerRecord, type BreakerRecord } from './records';
import { routingWritten } from './routing-writes';
import { ITEM_ABSENT, putItem } from './table';

type Versioned = BreakerState & { version: number };

/** Read with its destination by the deliver path (routing-table.ts); written only once it leaves the default. */
export const breakerEntity = defineEntity({
  name: 'breaker',
  schema: breakerRecord,
  key: (accountId: string, destinationId: string) => ({ pk: accountPartition(accountId), sk: `${routingPrefix.breakers}${destinationId}` }),
  collection: { partition: accountPartition, prefix: routingPrefix.breakers },
});

async function readBreaker(accountId: string, destinationId: string): Promise<Versioned> {
  const found = await breakerEntity.find(accountId, destinationId);
  if (!found) return { ...CLOSED_BREAKER, version: 0 };
  const { destination_id: _, ...breaker } = found;
  return breaker;
}

/**
 * Optimistic concurrency on a destination's breaker, as on events: `decide` sees the breaker and
 * returns the next one (or undefined to leave it); a write that lost a race reads again and decides
 * again. `known` is the breaker as the caller's routing table had it, so the common case is one write.
 * Returns the breaker as stored, whether this call changed it, and the breaker `decide` last saw
 * (what the change was made on). `beforeWrite` runs before each write with what it would write (the
 * wakes of held deliveries go out first: a write that then fails leaves only a wake that finds
 * nothing to do).
 */
export async function changeBreaker(
  accountId: string,
  destinationId: string,
  known: Versioned,
  decide: (current: BreakerState) => BreakerState | undefined,
  beforeWrite?: (next: BreakerState, current: BreakerState) => Promise<void>,
): Promise<{ breaker: BreakerState; changed: boolean; previous: BreakerState }> {
  let current = known;
  // Concurrent failures of one destination contend only until the breaker opens (then they write nothing).
  for (let round = 0; round < 25; round++) {
    const next = decide(current);
    if (!next) return { breaker: current, changed: false, previous: current };
    await beforeWrite?.(next, current);
    const written = await putItem(
      breakerEntity.item(
        { destination_id: destinationId, ...next, version: current.version + 1 } satisfies BreakerRecord,
        breakerEntity.key(accountId, destinationId),
      ),
      current.version === 0 ? ITEM_ABSENT : { expression: 'version = :v', values: { ':v': current.version } },
    );
    if (written) {
      routingWritten({ kind: 'destination', accountId, destinationId });
      return { breaker: next, changed: true, previous: current };
    }
    current = await readBreaker(accountId, destinationId);
  }
  throw new Error(`breaker of destination ${destinationId} kept changing under us`);
}

/** Starts the breaker afresh (a destination switched back on through the API). */
export async function resetBreaker(accountId: string, destinationId: string): Promise<void> {
  await changeBreaker(accountId, destinationId, await readBreaker(accountId, destinationId), (current) =>
    current.state === 'closed' && current.consecutive_failures === 0 ? undefined : { ...CLOSED_BREAKER, last_success_at: current.last_success_at, last_failure_at: current.last_failure_at },
  );
}

export const findBreaker = (accountId: string, destinationId: string): Promise<Versioned> => readBreaker(accountId, destinationId);

/** Every breaker of the account, by destination id. */
export async function listBreakers(accountId: string): Promise<Map<string, BreakerState>> {
  const records = await breakerEntity.list(accountId);
  return new Map(records.map(({ destination_id, version: _, ...breaker }) => [destination_id, breaker]));
}
