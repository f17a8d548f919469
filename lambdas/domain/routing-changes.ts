/**
 * The account's routing change log: each destination or route write raises the account's routing
 * version and names what it changed, in the same write of the account item, so a process whose cached
 * routing is at version v learns from one read of that item exactly which items to read again. Only
 * the last few changes are kept (the account item is read once a second by every ingest instance and
 * must stay under 1 KB, one read and one write unit); a process further behind reads its routing whole.
 */

export type RoutingChange = { kind: 'destination' | 'route'; id: string };

/** At ~50 bytes an entry, with the account's own ~350 bytes: the item stays under 1 KB. */
export const ROUTING_CHANGES_KEPT = 10;

const KIND_CODE = { destination: 'd', route: 'r' } as const;
const CODE_KIND = { d: 'destination', r: 'route' } as const;

/** The log after the write that makes `version`: its entry appended, the oldest dropped past `kept`. */
export function recordChange(log: readonly string[], version: number, change: RoutingChange, kept = ROUTING_CHANGES_KEPT): string[] {
  return [...log, `${version}:${KIND_CODE[change.kind]}:${change.id}`].slice(-kept);
}

function parseEntry(entry: string): ({ version: number } & RoutingChange) | undefined {
  const [version, code, ...rest] = entry.split(':');
  const kind = CODE_KIND[code as keyof typeof CODE_KIND] as RoutingChange['kind'] | undefined;
  const id = rest.join(':');
  if (!kind || !id || !/^\d+$/.test(version ?? '')) return undefined;
  return { version: Number(version), kind, id };
}

export interface ChangedSince {
  destinations: Set<string>;
  routes: Set<string>;
}

/**
 * What changed after version `from` up to `to`, or undefined when the log does not name every one of
 * those versions (they fell out of it, or an entry is unreadable): the caller then reads everything.
 * Nothing changed when `to` is not after `from`.
 */
export function changesBetween(log: readonly string[], from: number, to: number): ChangedSince | undefined {
  const changed: ChangedSince = { destinations: new Set(), routes: new Set() };
  if (to <= from) return changed;
  const byVersion = new Map<number, RoutingChange>();
  for (const entry of log) {
    const parsed = parseEntry(entry);
    if (parsed) byVersion.set(parsed.version, parsed);
  }
  for (let version = from + 1; version <= to; version++) {
    const change = byVersion.get(version);
    if (!change) return undefined;
    (change.kind === 'destination' ? changed.destinations : changed.routes).add(change.id);
  }
  return changed;
}
