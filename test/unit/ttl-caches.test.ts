import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../lambdas/shared/ttl-cache';
import { ForgetfulCache } from '../../lambdas/store/forgetful-cache';

// The handlers' per-process caches (routing tables, source lookups, custom domains) live as long as a
// warm Lambda function: hours, across every account it serves. What they hold must follow the traffic
// of the last seconds, not add up over those hours.

describe('TtlCache', () => {
  it('serves a value until its time to live has passed, then reads again', async () => {
    const cache = new TtlCache<number>(() => 1000);
    let reads = 0;
    const load = async () => ++reads;

    expect(await cache.get('k', load, 0)).toBe(1);
    expect(await cache.get('k', load, 999)).toBe(1);
    expect(await cache.get('k', load, 1000)).toBe(2);
  });

  it('holds only the keys read within the last time to live or two, not every key it was ever asked for', async () => {
    const cache = new TtlCache<number>(() => 1000);

    // 100 accounts, one every 100 ms: 10 s, ten times the time to live.
    for (let i = 0; i < 100; i++) await cache.get(`account-${i}`, async () => i, i * 100);

    expect(cache.size).toBeLessThanOrEqual(20);
  });
});

describe('ForgetfulCache', () => {
  it('remembers a bounded number of forgotten keys, however many it is asked to forget', () => {
    const cache = new ForgetfulCache<number>(() => 1000, 100);

    for (let i = 0; i < 1000; i++) cache.forget(`account-${i}`);

    expect(cache.generationsHeld).toBeLessThanOrEqual(100);
  });

  it('does not serve what a read begun before a forget found, even when the forgotten keys were dropped meanwhile', async () => {
    const cache = new ForgetfulCache<string>(() => 60_000, 2);
    let finishOldRead: (value: string) => void = () => undefined;
    const oldRead = cache.get('a', () => new Promise<string>((resolve) => (finishOldRead = resolve)), 0);

    cache.forget('a');
    // Two more keys forgotten: the bound of 2 is reached and every generation starts again.
    cache.forget('b');
    cache.forget('c');
    finishOldRead('before the write');
    await oldRead;

    expect(await cache.get('a', async () => 'after the write', 1)).toBe('after the write');
  });

  it('shares a read under way with the misses that arrive during it, and not with those after a forget', async () => {
    const cache = new ForgetfulCache<number>(() => 60_000);
    let reads = 0;
    let finish: () => void = () => undefined;
    const load = () => new Promise<number>((resolve) => (finish = () => resolve(++reads)));
    const first = cache.get('a', load, 0);
    const during = cache.get('a', load, 1);
    finish();
    expect([await first, await during]).toEqual([1, 1]);

    const before = cache.get('b', load, 0);
    const finishBefore = finish;
    cache.forget('b');
    const after = cache.get('b', load, 1);
    finishBefore();
    finish();
    expect(await before).toBe(2);
    expect(await after).toBe(3);
  });

  it('shares nothing without a time to live: each asks, each reads', async () => {
    const cache = new ForgetfulCache<number>(() => 0);
    let reads = 0;
    const load = async () => ++reads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 2]);
  });
});
