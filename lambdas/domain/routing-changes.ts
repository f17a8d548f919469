/**
 * The account's routing change log: each destination or route write raises the account's routing
 * version and appends what it changed to a list on the account item, in one atomic update (no read
 * first, so concurrent writes of one account never retry), so a process whose cached routing is at
 * version v learns from one read of that item exactly which items to read again. The list's last
 * entry is the change that made the current version, the one before it the version before, and so on.
 * Only the last few are kept (every ingest instance reads the item once a second, and every routing
 * write rewrites it: it must stay under 1 KB, one read and one write unit); a process further behind
 * reads its routing whole.
 */

export type RoutingChange = { kind: 'destination' | 'route'; id: string };

/** What a trim keeps; it happens past ROUTING_CHANGES_TRIM_AT, so most writes are one write of the item. */
export const ROUTING_CHANGES_KEPT = 6;
/** At ~40 bytes an entry, with the account's own ~400 bytes: the item stays under 1 KB. */
const ROUTING_CHANGES_TRIM_AT = 10;

const KIND_CODE = { destination: 'd', route: 'r' } as const;
const CODE_KIND = { d: 'destination', r: 'route' } as const;

/** The log entry of one change. */
export const changeEntry = (change: RoutingChange): string => `${KIND_CODE[change.kind]}:${change.id}`;

/** The log to write back when it has grown past its bound (undefined: leave it). */
export const trimmedLog = (log: readonly string[]): string[] | undefined => (log.length > ROUTING_CHANGES_TRIM_AT ? log.slice(-ROUTING_CHANGES_KEPT) : undefined);

function parseEntry(entry: string): RoutingChange | undefined {
  const split = entry.indexOf(':');
  const kind = CODE_KIND[entry.slice(0, split) as keyof typeof CODE_KIND] as RoutingChange['kind'] | undefined;
  const id = entry.slice(split + 1);
  return split > 0 && kind && id ? { kind, id } : undefined;
}

export interface ChangedSince {
  destinations: Set<string>;
  routes: Set<string>;
}

/**
 * What changed after version `from`, by the log of the account at version `version`; undefined when
 * the log does not reach back to `from` (its entries were trimmed, or written before the log existed)
 * or one of those entries is unreadable: the caller then reads everything. Nothing changed when
 * `version` is not after `from`.
 */
export function changesBetween(log: readonly string[], version: number, from: number): ChangedSince | undefined {
  const changed: ChangedSince = { destinations: new Set(), routes: new Set() };
  const missed = version - from;
  if (missed <= 0) return changed;
  if (missed > log.length) return undefined;
  for (const entry of log.slice(log.length - missed)) {
    const change = parseEntry(entry);
    if (!change) return undefined;
    (change.kind === 'destination' ? changed.destinations : changed.routes).add(change.id);
  }
  return changed;
}
