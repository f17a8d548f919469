import { describe, expect, it } from 'vitest';
import { autoDisableHours, autoDisableReason } from '../../lambdas/domain/auto-disable';
import { isOperationalType, isReservedType, mayAnnounce } from '../../lambdas/domain/operational-events';
import { isRouted, routeMatches, type RouteRule } from '../../lambdas/domain/routing';

const now = new Date('2026-03-01T12:00:00Z');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000).toISOString();

describe('auto-disable', () => {
  it.each<[string, number, string | null, boolean]>([
    ['no failures', 120, null, false],
    ['failing for less than the limit', 120, hoursAgo(119.9), false],
    ['failing for exactly the limit', 120, hoursAgo(120), true],
    ['failing for longer', 120, hoursAgo(200), true],
    ['a decimal limit', 0.001, new Date(now.getTime() - 3_600).toISOString(), true],
    ['a decimal limit not reached', 0.001, new Date(now.getTime() - 3_500).toISOString(), false],
    ['0 means never', 0, hoursAgo(10_000), false],
  ])('%s', (_name, hours, failingSince, disable) => {
    expect(autoDisableReason(hours, failingSince, now) !== null).toBe(disable);
  });

  it('defaults to five days, and keeps a set value', () => {
    expect(autoDisableHours({})).toBe(120);
    expect(autoDisableHours({ auto_disable_after_hours: 0 })).toBe(0);
    expect(autoDisableReason(1, hoursAgo(2), now)).toBe(`every delivery failed for 1 hour (since ${hoursAgo(2)})`);
  });
});

describe('operational event guard', () => {
  it.each<[string | null, boolean, boolean]>([
    ['hookgate.delivery.dead_lettered', true, true],
    ['hookgate.anything', true, true],
    ['HookGate.x', true, false],
    ['HOOKGATE.delivery.failed', true, false],
    ['hookGATE.', true, false],
    ['hoo\u212Agate.x', true, false], // KELVIN SIGN lowercases to k
    ['hookgate', false, false],
    ['HOOKGATE', false, false],
    ['hookgate_x', false, false],
    ['payment.hookgate.x', false, false],
    [' hookgate.x', false, false],
    [null, false, false],
  ])('%s: refused to tenants %s; Hookgate’s own (no announcement of its failures) %s', (type, reserved, operational) => {
    expect(isReservedType(type)).toBe(reserved);
    expect(isOperationalType(type)).toBe(operational);
    expect(mayAnnounce({ event_type: type })).toBe(!operational);
  });
});

describe('routing of operational events', () => {
  it.each<[string | null, 'portal' | null, boolean]>([
    ['hookgate.*', null, true],
    ['hookgate.delivery.dead_lettered', null, true],
    ['hookgate.destination.*', null, false],
    [null, null, false],
    ['*', null, false],
    ['hookgate.*', 'portal', false],
  ])('a route with pattern %s (managed by %s) takes hookgate.delivery.dead_lettered: %s', (pattern, managedBy, matches) => {
    const route = { source_id: null, event_type_pattern: pattern, active: true, managed_by: managedBy };
    expect(routeMatches(route, { source_id: null, event_type: 'hookgate.delivery.dead_lettered' })).toBe(matches);
  });
});

describe('an operational event is created only where a route takes it', () => {
  const route = (event_type_pattern: string | null, more: Partial<RouteRule> = {}): RouteRule => ({ source_id: null, event_type_pattern, active: true, ...more });
  const notice = { source_id: null, event_type: 'hookgate.delivery.dead_lettered', payload: { json: { type: 'hookgate.delivery.dead_lettered', data: { destination_id: 'd1' } } } };
  it.each<[string, RouteRule[], boolean]>([
    ['no route at all', [], false],
    ['only catch-all routes', [route(null), route('*')], false],
    ['routes of other types', [route('invoice.*'), route('hookgate.destination.*')], false],
    ['a route of its source only (operational events have none)', [route('hookgate.*', { source_id: 'src_1' })], false],
    ['a portal subscription naming it', [route('hookgate.*', { managed_by: 'portal' })], false],
    ['an inactive hookgate.* route', [route('hookgate.*', { active: false })], false],
    ['a hookgate.* route', [route(null), route('hookgate.*')], true],
    ['a route naming the exact type', [route('hookgate.delivery.dead_lettered')], true],
    ['a hookgate.* route whose filter takes it', [route('hookgate.*', { filter: { data: { destination_id: 'd1' } } })], true],
    ['a hookgate.* route whose filter does not', [route('hookgate.*', { filter: { data: { destination_id: 'd2' } } })], false],
  ])('%s → %s', (_name, routes, created) => expect(isRouted(routes, notice)).toBe(created));
});
