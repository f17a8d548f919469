import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { homeMap, leaseMapCaps, leaseRoom, mapsToTry, SHARED_LEASES_PER_MAP, type LeaseMap } from '../domain/max-in-flight';
import { accountPartition } from './keys';
import { isThrottled, updateItem, updateOrSee, type Condition } from './table';

/**
 * Tries in flight under a cap, counted across every deliver function: a destination's `max_in_flight`
 * and an account's share are lease maps (holder → lease end, epoch ms), one small item each in a
 * partition of its own (never the account partition the routing table is read from); a large cap is
 * split over several, a share or the borrowed tries over smaller ones (lambdas/domain/max-in-flight.ts
 * `leaseMapCaps`). A take is one conditional write that adds the holder while its map has room; a
 * refused take returns the map as it found it, so a copy of the delivery in flight and the leases of
 * holders that died (their worker's Lambda timed out) are seen without a read, and the next write
 * clears those. The try's end removes its entry.
 */
export type LeaseScope =
  | /** A destination's cap. */ { accountId: string; destinationId: string }
  | /** An account's share. */ { accountId: string; destinationId?: undefined }
  | /** The tries borrowed past every account's share, deployment-wide. */ { borrowed: true; accountId?: undefined; destinationId?: undefined };

function mapKey(scope: LeaseScope, map: number) {
  if (scope.accountId === undefined) return { pk: `BORROWED#${map}`, sk: 'LEASES' };
  const { accountId, destinationId } = scope;
  return { pk: destinationId === undefined ? `${accountPartition(accountId)}#SHARE#${map}` : `${accountPartition(accountId)}#LEASES#${destinationId}#${map}`, sk: 'LEASES' };
}

/**
 * A holder's entry in a map: 16 characters of its hash (96 bits) rather than ids of 36 or 73, so a
 * full map of 20 stays well under 1 KB, one write unit a take or a release.
 */
export const leaseEntry = (holder: string): string => createHash('sha256').update(holder).digest('base64url').slice(0, 16);

const seenMap = z.looseObject({ leases: z.optional(z.record(z.string(), z.number())) });

/** A lease held: which map, whose, and until when (the release removes only that lease). */
export interface Lease {
  scope: LeaseScope;
  map: number;
  holder: string;
  until: number;
}

/** A lease map nobody has taken from for a day goes (TTL, free): a cap lowered since leaves no items behind for long. */
const MAP_RETENTION_SECONDS = 86_400;

/** Writes one take may make in one map: refused ones that found room (others took it first) are taken again. */
const TAKE_ROUNDS = 3;

export type Take = { kind: 'taken'; lease: Lease } | { kind: 'full' } | { kind: 'held' };

/**
 * Takes one of the cap's leases for `holder` until `until` (epoch ms): `held` when the holder has one
 * already (a copy of its delivery is in flight), `full` when the maps it looked in are. A map whose
 * writes are throttled (many deliveries waiting on one capped destination look at it) counts as full:
 * the delivery waits and looks again, and no task fails for it.
 */
export async function takeLease(scope: LeaseScope, holder: string, cap: number, now: Date, until: number, random: () => number = Math.random): Promise<Take> {
  if (cap < 1) return { kind: 'full' };
  const caps = scope.destinationId === undefined ? leaseMapCaps(cap, SHARED_LEASES_PER_MAP) : leaseMapCaps(cap);
  for (const map of mapsToTry(caps.length, homeMap(holder, caps.length), random)) {
    const taken = await takeIn(scope, map, holder, caps[map] ?? 0, now, until).catch((error: unknown) => {
      if (isThrottled(error)) return { kind: 'full' } as const;
      throw error;
    });
    if (taken.kind !== 'full') return taken;
  }
  return { kind: 'full' };
}

async function takeIn(scope: LeaseScope, map: number, holder: string, cap: number, now: Date, until: number): Promise<Take> {
  const key = mapKey(scope, map);
  const entry = leaseEntry(holder);
  const expiresAt = Math.ceil(until / 1000) + MAP_RETENTION_SECONDS;
  const lease: Take = { kind: 'taken', lease: { scope, map, holder, until } };
  // The first write supposes the map is there with room and no lapsed lease: what it finds otherwise shapes the next.
  let condition: Condition = { expression: 'attribute_exists(#leases) AND attribute_not_exists(#leases.#holder) AND size(#leases) < :cap', names: { '#holder': entry }, values: { ':cap': cap } };
  let clear: string[] = [];
  for (let round = 0; round < TAKE_ROUNDS; round++) {
    const result = await updateOrSee(key, { set: { expires_at: expiresAt }, setIn: { leases: { [entry]: until } }, removeIn: { leases: clear } }, condition);
    if (result.written) return lease;
    const leases: LeaseMap | undefined = result.seen === undefined ? undefined : seenMap.parse(result.seen).leases;
    if (leases === undefined) {
      // No map yet: the first take makes it, unless another take made it first.
      const made = await updateItem(key, { set: { leases: { [entry]: until }, expires_at: expiresAt } }, { condition: { expression: 'attribute_not_exists(#leases)' } });
      if (made !== false) return lease;
      continue;
    }
    // A write the SDK sent again after its first try landed finds its own lease: it is taken.
    if (leases[entry] === until) return lease;
    const room = leaseRoom(leases, entry, cap, now);
    if (room.kind !== 'room') return room;
    clear = room.lapsed.map(([h]) => h);
    condition = takeCondition(entry, cap, room.lapsed, room.own);
  }
  return { kind: 'full' };
}

/**
 * A take that clears lapsed leases: each still as it was seen (a holder that came back since keeps its
 * own), the holder's own lapsed lease as it was seen or none, and the map under its cap once they go.
 */
function takeCondition(entry: string, cap: number, lapsed: ReadonlyArray<[string, number]>, own: number | undefined): Condition {
  const names: Record<string, string> = { '#holder': entry };
  const values: Record<string, unknown> = { ':cap': cap + lapsed.length + (own === undefined ? 0 : 1) };
  const clauses = lapsed.map(([h, at], i) => {
    names[`#lapsed${i}`] = h;
    values[`:lapsed${i}`] = at;
    return `#leases.#lapsed${i} = :lapsed${i}`;
  });
  if (own === undefined) clauses.push('attribute_not_exists(#leases.#holder)');
  else {
    values[':own'] = own;
    clauses.push('#leases.#holder = :own');
  }
  return { expression: [...clauses, 'size(#leases) < :cap'].join(' AND '), names, values };
}

/** Lets a lease go, if it is still the one taken (a lease taken over after it lapsed is the new holder's). */
export async function releaseLease({ scope, map, holder, until }: Lease): Promise<void> {
  await updateItem(mapKey(scope, map), { removeIn: { leases: [leaseEntry(holder)] } }, { condition: { expression: '#leases.#holder = :until', names: { '#holder': leaseEntry(holder) }, values: { ':until': until } } });
}
