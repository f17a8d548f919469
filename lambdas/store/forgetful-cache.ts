import { TtlCache } from '../shared/ttl-cache';

/**
 * A TtlCache whose `forget` also wins over reads already in flight. Entries are stored under the key's
 * generation: a read that began before a write stores what it read under the old generation, which
 * nobody asks for any more, instead of putting the old value back for the rest of its time to live.
 */
export class ForgetfulCache<V> {
  private readonly cache: TtlCache<V>;
  private readonly generations = new Map<string, number>();

  constructor(ttlMs: () => number) {
    this.cache = new TtlCache<V>(ttlMs);
  }

  get(key: string, load: () => Promise<V>, now?: number): Promise<V> {
    return this.cache.get(this.current(key), load, now);
  }

  forget(key: string): void {
    const stale = this.current(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.cache.delete(stale);
  }

  private current(key: string): string {
    return `${this.generations.get(key) ?? 0}#${key}`;
  }
}
