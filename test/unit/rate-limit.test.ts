import { describe, expect, it } from 'vitest';
import { isStaleSlot, planSlot, slotIntervalMs } from '../../lambdas/domain/rate-limit';

const now = new Date('2026-03-01T12:00:00.000Z');
const at = (ms: number) => now.getTime() + ms;

describe('rate-limit slots', () => {
  it.each<[string, number, ReturnType<typeof planSlot>]>([
    ['a slot now is sent', at(0), { kind: 'send' }],
    ['a past slot is sent', at(-50), { kind: 'send' }],
    ['a slot within 3 s is sent at its time (the send waits)', at(3000), { kind: 'send' }],
    ['a later slot waits in the queue, back 2 s early', at(3001), { kind: 'wait', until: new Date(at(1001)) }],
    ['an hour ahead', at(3_600_000), { kind: 'wait', until: new Date(at(3_598_000)) }],
  ])('%s', (_name, slot, plan) => {
    expect(planSlot(slot, now)).toEqual(plan);
  });

  it.each<[number, boolean]>([
    [at(0), false],
    [at(-100), false],
    [at(-101), true],
    [at(5000), false],
  ])('a carried slot at %d is stale: %s', (slot, stale) => {
    expect(isStaleSlot(slot, now)).toBe(stale);
  });

  it('spaces slots by 1/limit seconds', () => {
    expect(slotIntervalMs(5)).toBe(200);
    expect(slotIntervalMs(1)).toBe(1000);
  });
});
