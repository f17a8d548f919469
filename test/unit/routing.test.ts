import { describe, expect, it } from 'vitest';
import { isValidPattern, patternMatches, reachesCustomer, routeMatches } from '../../lambdas/domain/routing';

describe('route matching', () => {
  it('matches exact types, trailing-* prefixes and null', () => {
    expect(patternMatches('payment.succeeded', 'payment.succeeded')).toBe(true);
    expect(patternMatches('payment.succeeded', 'payment.failed')).toBe(false);
    expect(patternMatches('payment.*', 'payment.succeeded')).toBe(true);
    expect(patternMatches('payment.*', 'payment.failed')).toBe(true);
    expect(patternMatches('payment.*', 'payout.paid')).toBe(false);
    expect(patternMatches('payment.*', null)).toBe(false);
    expect(patternMatches('*', 'anything')).toBe(true);
    expect(patternMatches(null, null)).toBe(true);
    expect(patternMatches(null, 'x')).toBe(true);
  });

  it('requires both the source and the type to match, and the route to be active', () => {
    const route = { source_id: 'src-1', event_type_pattern: 'order.*', active: true };
    expect(routeMatches(route, { source_id: 'src-1', event_type: 'order.created' })).toBe(true);
    expect(routeMatches(route, { source_id: 'src-2', event_type: 'order.created' })).toBe(false);
    expect(routeMatches(route, { source_id: 'src-1', event_type: 'invoice.paid' })).toBe(false);
    expect(routeMatches({ ...route, active: false }, { source_id: 'src-1', event_type: 'order.created' })).toBe(false);
    expect(routeMatches({ source_id: null, event_type_pattern: null, active: true }, { source_id: null, event_type: null })).toBe(true);
  });

  it('accepts * only at the end of a pattern', () => {
    expect(isValidPattern('a.*')).toBe(true);
    expect(isValidPattern('a.b')).toBe(true);
    expect(isValidPattern('*.created')).toBe(false);
    expect(isValidPattern('a*b*')).toBe(false);
  });
});

describe('reachesCustomer (the portal’s security model)', () => {
  it.each<[string | null, string | null, boolean]>([
    [null, null, true],
    ['cus_a', 'cus_a', true],
    ['cus_a', null, false],
    [null, 'cus_a', false],
    ['cus_a', 'cus_b', false],
    ['cus_a', 'CUS_A', false],
  ])('destination of %j, event for %j → %s', (destination, event, expected) => expect(reachesCustomer(destination, event)).toBe(expected));
});
