import { describe, expect, it } from 'vitest';
import { changeEntry, changesBetween, ROUTING_CHANGES_KEPT, trimmedLog, type RoutingChange } from '../../lambdas/domain/routing-changes';

const dest = (id: string): RoutingChange => ({ kind: 'destination', id });
const route = (id: string): RoutingChange => ({ kind: 'route', id });
const logOf = (...changes: RoutingChange[]) => changes.map(changeEntry);

describe('the routing change log', () => {
  it('is cut back to its last entries once it passes its bound, and left alone before', () => {
    let log: string[] = [];
    let longest = 0;
    for (let i = 0; i < 40; i++) {
      log = [...log, changeEntry(dest(`d${i}`))];
      log = trimmedLog(log) ?? log;
      longest = Math.max(longest, log.length);
      expect(log.at(-1)).toBe(changeEntry(dest(`d${i}`)));
    }
    expect(log.length).toBeGreaterThanOrEqual(ROUTING_CHANGES_KEPT);
    expect(longest).toBeLessThanOrEqual(10);
    expect(trimmedLog(logOf(dest('a')))).toBeUndefined();
  });

  it('keeps ids whole, whatever they hold', () => {
    expect(changesBetween(logOf(route('a:b:c')), 1, 0)?.routes).toEqual(new Set(['a:b:c']));
  });

  // The last entry made `version`, the one before it `version - 1`, and so on.
  it.each<[string, string[], number, number, { destinations: string[]; routes: string[] } | undefined]>([
    ['nothing after a version already reached', logOf(dest('a')), 1, 1, { destinations: [], routes: [] }],
    ['nothing when the reader is ahead of the stamp it was given', logOf(dest('a')), 1, 2, { destinations: [], routes: [] }],
    ['one destination', logOf(dest('a'), dest('b')), 7, 6, { destinations: ['b'], routes: [] }],
    ['routes and destinations apart, each named once', logOf(dest('a'), route('r'), dest('a')), 3, 0, { destinations: ['a'], routes: ['r'] }],
    ['only the versions after the reader', logOf(dest('a'), route('r'), dest('b')), 12, 11, { destinations: ['b'], routes: [] }],
    ['every entry, when the reader is just behind the oldest', logOf(dest('a'), route('r')), 12, 10, { destinations: ['a'], routes: ['r'] }],
    ['undefined: further behind than the log reaches', logOf(dest('a'), dest('b')), 12, 9, undefined],
    ['undefined: an empty log behind the stamp (an account older than the log)', [], 4, 0, undefined],
    ['undefined: an entry it cannot read', ['x:a'], 1, 0, undefined],
  ])('%s', (_, log, version, from, expected) => {
    const changed = changesBetween(log, version, from);
    expect(changed && { destinations: [...changed.destinations], routes: [...changed.routes] }).toEqual(expected);
  });
});
