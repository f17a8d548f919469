import { createHash } from 'node:crypto';
import type { Direction } from './vocabulary';

/** The fields of an event the de-duplication rule reads. */
export interface DedupeFacts {
  account_id: string;
  direction: Direction;
  source_id: string | null;
  /** A provider's delivery id (`deliveryIdFor`), a published `external_event_id`, or an operational event's key. */
  external_event_id: string | null;
  replay_of: string | null;
}

/**
 * The one rule for when two events are the same delivery: the same external id within a source
 * (inbound) or within the account (outbound, Hookgate's own operational events included). A replay
 * is a copy on purpose and claims nothing. The key is hashed: ids are the sender's text, up to 256
 * characters. Null: the event claims no id.
 */
export function dedupeKeyOf(event: DedupeFacts): string | null {
  if (event.external_event_id === null || event.replay_of !== null) return null;
  const scope = event.source_id ?? event.account_id;
  return createHash('sha256').update(`${event.direction}\n${scope}\n${event.external_event_id}`).digest('hex');
}

/**
 * What an accept does when its external id is claimed by an event it cannot find. The claim is taken
 * before the claimant's messages are sent and its event written, so its claimant may still be writing
 * it (`in_progress`: the caller is answered 5xx and retries), or have failed: its caller was answered
 * 5xx, and once the claimant's own messages have given up on it (the same grace), the id is free
 * (`take_over`). A claim without a time predates this rule and is free.
 */
export function orphanClaimVerdict(claimedAtMs: number | undefined, now: Date, graceSeconds: number): 'in_progress' | 'take_over' {
  if (claimedAtMs === undefined) return 'take_over';
  return now.getTime() - claimedAtMs < graceSeconds * 1000 ? 'in_progress' : 'take_over';
}
