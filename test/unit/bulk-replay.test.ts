import { describe, expect, it } from 'vitest';
import { leaseUntil, replayJobExpiresAt, selectForReplay, type ReplayCandidate, type ReplaySelection } from '../../lambdas/domain/bulk-replay';

const A = 'dest-a';
const B = 'dest-b';
const event = (status: ReplayCandidate['status'], deliveries: Record<string, ReplayCandidate['deliveries'][string]['status']> = {}, replay_job: string | null = null): ReplayCandidate => ({
  status,
  deliveries: Object.fromEntries(Object.entries(deliveries).map(([id, s]) => [id, { status: s }])),
  replay_job,
});
const deadLetters: ReplaySelection = { statuses: ['dead_letter'] };
const deadLettersOfA: ReplaySelection = { statuses: ['dead_letter'], destination_id: A };
const deliveredToA: ReplaySelection = { statuses: ['delivered', 'dead_letter'], destination_id: A };

describe('which events a bulk replay replays', () => {
  it.each<[string, ReplayCandidate, ReplaySelection, ReturnType<typeof selectForReplay>]>([
    ['a dead-lettered event, any destination', event('dead_letter', { [A]: 'dead_letter' }), deadLetters, 'replay'],
    ['a delivered event is not a dead letter', event('delivered', { [A]: 'delivered' }), deadLetters, 'skip'],
    ['an event in flight is never replayed', event('retry_scheduled', { [A]: 'retry_scheduled' }), { statuses: ['dead_letter', 'delivered'] }, 'skip'],
    ['an accepted event when asked for', event('accepted'), { statuses: ['accepted'] }, 'replay'],
    ['with a destination: its own delivery failed', event('dead_letter', { [A]: 'dead_letter', [B]: 'delivered' }), deadLettersOfA, 'replay'],
    ['with a destination: another one failed, this one was delivered (no duplicate)', event('dead_letter', { [A]: 'delivered', [B]: 'dead_letter' }), deadLettersOfA, 'skip'],
    ['with a destination: never routed to it', event('dead_letter', { [B]: 'dead_letter' }), deadLettersOfA, 'skip'],
    ['with a destination: a delivered event, asked for', event('delivered', { [A]: 'delivered' }), deliveredToA, 'replay'],
    ['with a destination: an accepted event had no delivery to it', event('accepted'), { statuses: ['accepted'], destination_id: A }, 'skip'],
    ['already replayed by this job (a resumed run): counted, not replayed', event('replayed', { [A]: 'dead_letter' }, 'job-1'), deadLettersOfA, 'replayed_before'],
    ['replayed by another job: no longer a dead letter', event('replayed', { [A]: 'dead_letter' }, 'job-0'), deadLettersOfA, 'skip'],
    ['replayed by another job, replayed events asked for', event('replayed', { [A]: 'dead_letter' }, 'job-0'), { statuses: ['replayed'] }, 'replay'],
  ])('%s', (_name, candidate, selection, expected) => {
    expect(selectForReplay(candidate, selection, 'job-1')).toBe(expected);
  });

  it('a lease runs for its seconds from now; a finished job is kept 30 days', () => {
    const now = new Date('2026-05-01T00:00:00.000Z');
    expect(leaseUntil(now, 120)).toBe('2026-05-01T00:02:00.000Z');
    expect(replayJobExpiresAt('2026-05-01T00:00:00.000Z')).toBe(Date.parse('2026-05-31T00:00:00.000Z') / 1000);
  });
});
