interface Slot<V> {
  value: V;
  size: number;
  /** When the entry last moved to the young end: `tick` at its insertion or promotion. */
  tick: number;
}

/**
 * A least-recently-used map bounded by the total `sizeOf` its values (1 each by default: an entry
 * count). A value larger than the whole bound is not kept.
 *
 * A hit moves its entry to the young end only when it sits in the older half: an entry moved fewer
 * than count / 2 moves ago has fewer than count / 2 entries after it, so it is not next to go. A hot
 * entry then costs a Map lookup per hit, not a delete and a set (a busy URL or key is hit thousands of
 * times a second); eviction order differs from exact LRU only among entries of the younger half.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, Slot<V>>();
  private total = 0;
  private tick = 0;

  constructor(
    readonly maxSize: number,
    private readonly sizeOf: (value: V, key: K) => number = () => 1,
  ) {}

  get size(): number {
    return this.total;
  }

  get count(): number {
    return this.map.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    if ((this.tick - entry.tick) * 2 >= this.map.size) {
      this.map.delete(key);
      entry.tick = ++this.tick;
      this.map.set(key, entry);
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value, key);
    if (size > this.maxSize) return;
    this.map.set(key, { value, size, tick: ++this.tick });
    this.total += size;
    // Map iteration is insertion order: the first key is the least recently used.
    for (const [oldest, entry] of this.map) {
      if (this.total <= this.maxSize) break;
      this.map.delete(oldest);
      this.total -= entry.size;
    }
  }

  delete(key: K): boolean {
    const entry = this.map.get(key);
    if (!entry) return false;
    this.map.delete(key);
    this.total -= entry.size;
    return true;
  }

  /** Deletes every entry whose value matches. */
  deleteWhere(match: (value: V) => boolean): void {
    for (const [key, entry] of this.map) {
      if (match(entry.value)) this.delete(key);
    }
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }
}
