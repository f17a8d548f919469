import { describe, expect, it } from 'vitest';
import { changesBetween, recordChange, ROUTING_CHANGES_KEPT, type RoutingChange } from '../../lambdas/domain/routing-changes';

const dest = (id: string): RoutingChange => ({ kind: 'destination', id });
const route = (id: string): RoutingChange => ({ kind: 'route', id });

/** The log after writes that raised the version from 0, one change each. */
const logOf = (...changes: RoutingChange[]) => changes.reduce<string[]>((log, change, i) => recordChange(log, i + 1, change), []);

describe('the routing change log', () => {
  it('keeps the last entries only', () => {
    const changes = Array.from({ length: ROUTING_CHANGES_KEPT + 3 }, (_, i) => dest(`d${i}`));
    const log = logOf(...changes);
    expect(log).toHaveLength(ROUTING_CHANGES_KEPT);
    expect(changesBetween(log, 3, ROUTING_CHANGES_KEPT + 3)?.destinations.size).toBe(ROUTING_CHANGES_KEPT);
    expect(changesBetween(log, 2, ROUTING_CHANGES_KEPT + 3)).toBeUndefined();
  });

  it('keeps ids whole, whatever they hold', () => {
    expect(changesBetween(logOf(route('a:b:c')), 0, 1)?.routes).toEqual(new Set(['a:b:c']));
  });

  it.each<[string, string[], number, number, { destinations: string[]; routes: string[] } | undefined]>([
    ['nothing after a version already reached', logOf(dest('a')), 1, 1, { destinations: [], routes: [] }],
    ['nothing when the reader is ahead of the stamp it was given', logOf(dest('a')), 2, 1, { destinations: [], routes: [] }],
    ['one destination', logOf(dest('a'), dest('b')), 1, 2, { destinations: ['b'], routes: [] }],
    ['routes and destinations apart, each named once', logOf(dest('a'), route('r'), dest('a')), 0, 3, { destinations: ['a'], routes: ['r'] }],
    ['only the versions asked for', logOf(dest('a'), route('r'), dest('b')), 1, 2, { destinations: [], routes: ['r'] }],
    ['undefined: a version the log no longer names', logOf(dest('a'), dest('b')).slice(1), 0, 2, undefined],
    ['undefined: a version not yet in the log it was read with', logOf(dest('a')), 0, 2, undefined],
    ['undefined: an empty log behind the stamp (an account older than the log)', [], 0, 4, undefined],
    ['undefined: an entry it cannot read', ['1:x:a'], 0, 1, undefined],
  ])('%s', (_, log, from, to, expected) => {
    const changed = changesBetween(log, from, to);
    expect(changed && { destinations: [...changed.destinations], routes: [...changed.routes] }).toEqual(expected);
  });
});
