import { describe, expect, it } from 'vitest';
import { heldItemOf } from '../../lambdas/store/held-deliveries';

// The local runtime's queue restore finds held deliveries in a table scan by their items alone.
describe('a held item, as a scan finds it', () => {
  it.each<[string, Record<string, unknown>, ReturnType<typeof heldItemOf>]>([
    [
      'a held delivery in a shard',
      { pk: 'ACCT#a1#HELD#d1#5', sk: '2026-11-28T07:00:00.000Z#e1', entity: 'held_delivery', event_id: 'e1' },
      { accountId: 'a1', destinationId: 'd1', eventId: 'e1' },
    ],
    ['one from before the shards (its delivery gets a message and parks again)', { pk: 'ACCT#a1#HELD#d1', sk: '2026-11-28T07:00:00.000Z#e1', entity: 'held_delivery', event_id: 'e1' }, undefined],
    ['the chain mark beside them', { pk: 'ACCT#a1#HELD#d1', sk: 'CHAIN', entity: 'held_chain', on: true }, undefined],
    ['an item of another kind', { pk: 'ACCT#a1#EVT#e1', sk: 'EVENT', entity: 'event' }, undefined],
  ])('%s', (_, item, found) => {
    expect(heldItemOf(item)).toEqual(found);
  });
});
