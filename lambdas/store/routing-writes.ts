/**
 * What a write through this process changed of an account's routing, told to whoever keeps routing
 * here (store/routing-table.ts, whose caches subscribe as it loads). The account, destination, route
 * and breaker writers say what they wrote and know no cache, so routing's reader may depend on its
 * writers and not the other way round; a process that never reads routing keeps nothing to forget.
 */
export type RoutingWrite =
  /** The account changed (its plan, retention): its stamp and routes are read again. */
  | { kind: 'account'; accountId: string }
  /** A raise of the routing stamp wrote this account item (read back whole from the write): the next read here starts from it. */
  | { kind: 'stamp'; accountId: string; item: Record<string, unknown> }
  /** A destination's item or breaker. */
  | { kind: 'destination'; accountId: string; destinationId: string };

const listeners: Array<(write: RoutingWrite) => void> = [];

export function onRoutingWrite(listener: (write: RoutingWrite) => void): void {
  listeners.push(listener);
}

export function routingWritten(write: RoutingWrite): void {
  for (const listener of listeners) listener(write);
}
