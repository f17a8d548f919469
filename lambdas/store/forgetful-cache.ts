import { TtlCache } from '../shared/ttl-cache';

/** Keys whose generation is remembered at most; then every generation starts again (see `forget`). */
const MAX_GENERATIONS = 10_000;

/**
 * A TtlCache whose `forget` also wins over reads already in flight. Entries are stored under the key's
 * generation: a read that began before a write stores what it read under the old generation, which
 * nobody asks for any more, instead of putting the old value back for the rest of its time to live.
 */
export class ForgetfulCache<V> {
  private readonly cache: TtlCache<V>;
  private readonly generations = new Map<string, number>();
  /** Reads under way, by generation key: callers of one generation share one read. */
  private readonly loading = new Map<string, Promise<V>>();
  /** Part of every entry's key, raised when the generations are dropped, so no old generation comes back. */
  private epoch = 0;

  constructor(
    private readonly ttlMs: () => number,
    private readonly maxGenerations = MAX_GENERATIONS,
  ) {
    this.cache = new TtlCache<V>(ttlMs);
  }

  /** Keys whose generation is remembered. */
  get generationsHeld(): number {
    return this.generations.size;
  }

  /**
   * A miss while another read of the same generation is under way waits for that read rather than
   * making its own: as many requests as arrive during one read would each read otherwise. A forget
   * starts a new generation, so nobody who asks after a write joins a read begun before it. Without
   * a time to live (0: read every time) nothing is shared.
   */
  get(key: string, load: () => Promise<V>, now?: number): Promise<V> {
    const current = this.current(key);
    if (this.ttlMs() <= 0) return this.cache.get(current, load, now);
    const pending = this.loading.get(current);
    if (pending) return pending;
    return this.cache.get(
      current,
      () => {
        const started = load().finally(() => this.loading.delete(current));
        this.loading.set(current, started);
        return started;
      },
      now,
    );
  }

  /**
   * A generation per key ever forgotten would grow with every account a warm function writes for. At
   * the bound they are all dropped and the epoch raised instead: every entry is then a miss, once,
   * and a read in flight still stores under a key nobody asks for.
   */
  forget(key: string): void {
    const stale = this.current(key);
    this.cache.delete(stale);
    if (this.generations.size >= this.maxGenerations && !this.generations.has(key)) {
      this.generations.clear();
      this.epoch++;
    }
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }

  private current(key: string): string {
    return `${this.epoch}.${this.generations.get(key) ?? 0}#${key}`;
  }
}
