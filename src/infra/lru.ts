/**
 * A least-recently-used map bounded by the total `sizeOf` its values (1 each by default: an entry
 * count). A value larger than the whole bound is not kept.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, { value: V; size: number }>();
  private total = 0;

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
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value, key);
    if (size > this.maxSize) return;
    this.map.set(key, { value, size });
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
