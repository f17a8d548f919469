import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { documentClient } from '../../lambdas/store/client';
import { leaseEntry, releaseLease, takeLease, type Lease, type LeaseScope } from '../../lambdas/store/leases';
import { runAs } from '../../local/sdk-hooks';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { config } from '../../lambdas/shared/config';
import { applyThrottles } from '../../local/throttles';

// The cap's lease maps against the emulators, as the deliver function takes them (its role, and the
// local runtime's returned item on a refused condition, which DynamoDB gives and dynalite does not).
gatewayWithSinkForFile();

const asDeliver = <T>(work: () => Promise<T>) => runAs('hookgate-deliver', work);
const NOW = () => new Date();
const until = (ms: number) => Date.now() + ms;
let scopes = 0;
const freshScope = () => ({ accountId: `acct_leases${++scopes}`, destinationId: `dst_leases${scopes}` });
const take = (scope: LeaseScope, holder: string, cap: number, leaseMs = 60_000, random?: () => number) => asDeliver(() => takeLease(scope, holder, cap, NOW(), until(leaseMs), random));
const taken = async (scope: LeaseScope, holder: string, cap: number, leaseMs?: number) => {
  const result = await take(scope, holder, cap, leaseMs);
  if (result.kind !== 'taken') throw new Error(`${holder}: ${result.kind}`);
  return result.lease;
};
const mapOf = async (lease: Pick<Lease, 'scope' | 'map'>) => {
  const scope = lease.scope;
  const pk =
    scope.accountId === undefined ? `BORROWED#${lease.map}` : scope.destinationId === undefined ? `ACCT#${scope.accountId}#SHARE#${lease.map}` : `ACCT#${scope.accountId}#LEASES#${scope.destinationId}#${lease.map}`;
  const out = await documentClient().send(new GetCommand({ TableName: config().tableName, Key: { pk, sk: 'LEASES' }, ConsistentRead: true }));
  return (out.Item?.leases ?? {}) as Record<string, number>;
};
/** The entries a map should hold for these holders, sorted as `Object.keys(map).sort()` is. */
const entries = (...holders: string[]) => holders.map(leaseEntry).sort();

describe('lease maps under a cap', () => {
  it('gives out as many leases as the cap, then none; a release makes room for one more', async () => {
    const scope = freshScope();
    const held = [await taken(scope, 'e1', 3), await taken(scope, 'e2', 3), await taken(scope, 'e3', 3)];
    expect(await take(scope, 'e4', 3)).toEqual({ kind: 'full' });
    expect(Object.keys(await mapOf(held[0]!)).sort()).toEqual(entries('e1', 'e2', 'e3'));
    await asDeliver(() => releaseLease(held[1]!));
    expect(await take(scope, 'e4', 3)).toMatchObject({ kind: 'taken' });
    expect(await take(scope, 'e5', 3)).toEqual({ kind: 'full' });
  });

  it('tells a copy of a delivery whose lease is running that it is in flight, without taking a second', async () => {
    const scope = freshScope();
    const first = await taken(scope, 'e1', 5);
    expect(await take(scope, 'e1', 5)).toEqual({ kind: 'held' });
    expect(Object.keys(await mapOf(first))).toEqual(entries('e1'));
  });

  it('clears the lapsed leases of holders that died in the take that finds them, and no running one', async () => {
    const scope = freshScope();
    await taken(scope, 'dead1', 3, 300);
    await taken(scope, 'dead2', 3, 300);
    const alive = await taken(scope, 'alive', 3);
    await new Promise((resolve) => setTimeout(resolve, 400)); // the two dead holders' leases lapse
    const next = await taken(scope, 'next', 3);
    expect(Object.keys(await mapOf(next)).sort()).toEqual(entries('alive', 'next'));
    // A release of a lease that lapsed and was cleared removes nothing of anyone else's.
    await asDeliver(() => releaseLease({ scope, map: 0, holder: 'dead1', until: 0 }));
    expect(Object.keys(await mapOf(alive)).sort()).toEqual(entries('alive', 'next'));
  });

  it('takes its own lapsed lease again in place (a retry after its worker died)', async () => {
    const scope = freshScope();
    await taken(scope, 'other', 2);
    await taken(scope, 'mine', 2, 300);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const again = await taken(scope, 'mine', 2);
    expect(await mapOf(again)).toMatchObject({ [leaseEntry('mine')]: again.until });
    expect(await take(scope, 'third', 2)).toEqual({ kind: 'full' });
  });

  it('a release removes only the lease it took: one taken over after it lapsed stays the new holder\'s', async () => {
    const scope = freshScope();
    const old = await taken(scope, 'mine', 1, 300);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const renewed = await taken(scope, 'mine', 1);
    await asDeliver(() => releaseLease(old));
    expect(await mapOf(renewed)).toEqual({ [leaseEntry('mine')]: renewed.until });
  });

  it('splits a large cap over maps of twenty and never gives out more than the cap in all', async () => {
    const scope = freshScope();
    const cap = 45; // maps of 20, 20 and 5
    const results = await Promise.all(Array.from({ length: 60 }, (_, n) => take(scope, `e${n}`, cap)));
    const leases = results.flatMap((r) => (r.kind === 'taken' ? [r.lease] : []));
    expect(leases.length).toBeLessThanOrEqual(cap);
    const maps = await Promise.all([0, 1, 2].map((map) => mapOf({ scope, map })));
    for (const [n, map] of maps.entries()) expect(Object.keys(map).length).toBeLessThanOrEqual([20, 20, 5][n]!);
    expect(maps.reduce((sum, map) => sum + Object.keys(map).length, 0)).toBe(leases.length);
    // Those refused took nothing anywhere.
    const holders = new Set(maps.flatMap((map) => Object.keys(map)));
    for (const [n, result] of results.entries()) expect(holders.has(leaseEntry(`e${n}`))).toBe(result.kind === 'taken');
  });

  it('a raised cap counts the leases its maps already hold', async () => {
    const scope = freshScope();
    for (let n = 0; n < 20; n++) await taken(scope, `old${n}`, 20);
    const results = await Promise.all(Array.from({ length: 5 }, (_, n) => take(scope, `new${n}`, 21)));
    expect(results.filter((r) => r.kind === 'taken')).toHaveLength(1);
  });

  it('splits an account\'s share over maps of five and never gives out more than the share in all', async () => {
    const { accountId } = freshScope();
    const scope = { accountId };
    const share = 12; // maps of 5, 5 and 2
    const results = await Promise.all(Array.from({ length: 20 }, (_, n) => take(scope, `dst/e${n}`, share)));
    const leases = results.flatMap((r) => (r.kind === 'taken' ? [r.lease] : []));
    expect(leases.length).toBeLessThanOrEqual(share);
    const maps = await Promise.all([0, 1, 2].map((map) => mapOf({ scope, map })));
    for (const [n, map] of maps.entries()) expect(Object.keys(map).length).toBeLessThanOrEqual([5, 5, 2][n]!);
    expect(maps.reduce((sum, map) => sum + Object.keys(map).length, 0)).toBe(leases.length);
    expect(await mapOf({ scope, map: 3 })).toEqual({});
  });

  it('keeps an account\'s share in maps of its own', async () => {
    const { accountId } = freshScope();
    const share = await taken({ accountId }, 'dst1/e1', 1);
    expect(await take({ accountId }, 'dst2/e2', 1)).toEqual({ kind: 'full' });
    expect(await mapOf(share)).toEqual({ [leaseEntry('dst1/e1')]: share.until });
  });

  it('counts a map whose writes are throttled as full: the delivery waits, nothing fails, nothing is taken', async () => {
    const scope = freshScope();
    applyThrottles([{ service: 'DynamoDB', keyPrefix: `ACCT#${scope.accountId}#LEASES#` }]);
    try {
      expect(await take(scope, 'e1', 3)).toEqual({ kind: 'full' });
    } finally {
      applyThrottles([]);
    }
    expect(await mapOf({ scope, map: 0 })).toEqual({});
    expect(await take(scope, 'e1', 3)).toMatchObject({ kind: 'taken' });
  });
});
