/** A small per-process cache with a time limit, for reads that may be a few seconds stale. */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private nextSweepAt = 0;

  constructor(
    private readonly ttlMs: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** Entries held, expired or not. */
  get size(): number {
    return this.entries.size;
  }

  async get(key: string, load: () => Promise<V>, now = Date.now()): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load();
    const ttl = this.ttlMs();
    if (ttl > 0) {
      this.dropExpired(now, ttl);
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: now + ttl });
    }
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /**
   * An expired entry is only replaced when its key is read again: without a sweep, a warm function
   * would hold the routing table of every account it served in the last hours (up to maxEntries of
   * them), not of those it served in the last seconds. Once per time to live, so the sweep's cost is
   * shared by every read of that time.
   */
  private dropExpired(now: number, ttl: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + ttl;
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
