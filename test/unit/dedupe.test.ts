import { describe, expect, it } from 'vitest';
import { dedupeKeyOf, orphanClaimVerdict, type DedupeFacts } from '../../lambdas/domain/dedupe';

const inbound: DedupeFacts = { account_id: 'acct-1', direction: 'inbound', source_id: 'src-1', external_event_id: 'evt_1', replay_of: null };
const outbound: DedupeFacts = { account_id: 'acct-1', direction: 'outbound', source_id: null, external_event_id: 'evt_1', replay_of: null };
const key = (overrides: Partial<DedupeFacts>, base = inbound) => dedupeKeyOf({ ...base, ...overrides });

describe('the one de-duplication rule', () => {
  it.each<[string, string | null, string | null, boolean]>([
    ['a repeat within a source is the same delivery', key({}), key({}), true],
    ['the same id from another source is not', key({}), key({ source_id: 'src-2' }), false],
    ['an outbound id is one per account, whatever else differs', key({}, outbound), key({ source_id: null }, outbound), true],
    ['the same id in another account is not', key({}, outbound), key({ account_id: 'acct-2' }, outbound), false],
    ['inbound and outbound never meet, even in one scope', key({ source_id: null }), key({}, outbound), false],
    ['another id is another delivery', key({}), key({ external_event_id: 'evt_2' }), false],
  ])('%s', (_, a, b, same) => {
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a === b).toBe(same);
  });

  it('keeps the key claims already stored carry (sha256 of direction, scope and id)', () => {
    expect(key({})).toBe('713257ec8efd43bcecff44d338b2e6a3c690f2c1e846e3268e3961c692d7d35c');
  });

  it.each<[string, Partial<DedupeFacts>]>([
    ['no external id', { external_event_id: null }],
    ['a replay (a copy on purpose)', { replay_of: 'evt-original' }],
  ])('claims nothing for %s', (_, overrides) => {
    expect(key(overrides)).toBeNull();
  });
});

describe('a claim whose event cannot be found', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  it.each<[string, number | undefined, 'in_progress' | 'take_over']>([
    ['claimed a moment ago: its accept may still be writing it', now.getTime() - 50, 'in_progress'],
    ['claimed just inside the grace', now.getTime() - 59_999, 'in_progress'],
    ['claimed a grace ago: its accept failed, and its messages gave up', now.getTime() - 60_000, 'take_over'],
    ['claimed long ago', now.getTime() - 86_400_000, 'take_over'],
    ['a claim with no time', undefined, 'take_over'],
  ])('%s', (_, claimedAt, verdict) => {
    expect(orphanClaimVerdict(claimedAt, now, 60)).toBe(verdict);
  });
});
