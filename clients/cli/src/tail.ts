import type { EventListItem } from '../../typescript/src/index.js';

/**
 * Which listed events `events tail` has not printed yet. Each poll lists the events created since
 * `since()`; `take` answers the ones it has not seen, oldest first.
 *
 * The window starts `clockSkewMs` before the tail started, since `created_at` is the gateway's clock,
 * not this machine's; what the first poll finds there is the baseline, seen but not printed. Without a
 * status filter an event is in the list from its creation on, so the window then slides to
 * `lookbackMs` before the newest event seen (an event listed a little after a newer one still
 * falls inside it). With a status filter an old event can come to match it later (a `dead_letter`
 * after its last retry), so the window stays at the start and every event since is listed each poll.
 */
export class TailWindow {
  readonly #seen = new Map<string, number>();
  readonly #start: number;
  readonly #slides: boolean;
  readonly #lookbackMs: number;
  #newest = Number.NEGATIVE_INFINITY;

  constructor(options: { startedAt: number; filtersByStatus: boolean; clockSkewMs?: number; lookbackMs?: number }) {
    this.#start = options.startedAt - (options.clockSkewMs ?? 5 * 60_000);
    this.#slides = !options.filtersByStatus;
    this.#lookbackMs = options.lookbackMs ?? 60_000;
  }

  /** The `date_from` of the next poll (ISO 8601). */
  since(): string {
    return new Date(this.#from()).toISOString();
  }

  #from(): number {
    return this.#slides ? Math.max(this.#start, this.#newest - this.#lookbackMs) : this.#start;
  }

  /** Marks `events` seen and answers those that were not, oldest first (ids are time-ordered UUIDv7s). */
  take(events: readonly EventListItem[]): EventListItem[] {
    const fresh: EventListItem[] = [];
    for (const event of events) {
      if (this.#seen.has(event.id)) continue;
      const created = Date.parse(event.created_at);
      this.#seen.set(event.id, created);
      if (created > this.#newest) this.#newest = created;
      fresh.push(event);
    }
    // What is behind the window is never listed again, so it need not be remembered.
    const from = this.#from();
    for (const [id, created] of this.#seen) if (created < from) this.#seen.delete(id);
    return fresh.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** How many events it remembers (bounded by the window). */
  get remembered(): number {
    return this.#seen.size;
  }
}
