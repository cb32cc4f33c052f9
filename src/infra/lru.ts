interface Slot<K, V> {
  /** The key as first set: a hit never stores the caller's copy (see `get`). */
  key: K;
  value: V;
  size: number;
  /** When the entry last moved to the young end: `tick` at its insertion or promotion. */
  tick: number;
  /** Neighbours in recency order: `older` toward the next to go, `younger` toward the newest. */
  older: Slot<K, V> | null;
  younger: Slot<K, V> | null;
}

/**
 * A least-recently-used map bounded by the total `sizeOf` its values (1 each by default: an entry
 * count). A value larger than the whole bound is not kept.
 *
 * A hit moves its entry to the young end only when it sits in the older half: an entry moved fewer
 * than count / 2 moves ago has fewer than count / 2 entries after it, so it is not next to go. A hot
 * entry then costs a Map lookup per hit; eviction order differs from exact LRU only among entries of
 * the younger half.
 *
 * Recency is a linked list through the entries, not the Map's insertion order: a move relinks two
 * neighbours and allocates nothing. (Moving by Map delete and set, as before, stored the caller's key —
 * a key hash computed per request — until the next move and grew the Map's table until it was
 * rebuilt: garbage that outlived the young generation at every hit, and paced the server's major GCs,
 * whose pauses were its latency tail; docs/EVALUATION.md "Read-path tail".)
 */
export class Lru<K, V> {
  private readonly map = new Map<K, Slot<K, V>>();
  private total = 0;
  private tick = 0;
  /** The least recently used entry, the next to go. */
  private oldest: Slot<K, V> | null = null;
  private newest: Slot<K, V> | null = null;

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
    const slot = this.map.get(key);
    if (!slot) return undefined;
    if ((this.tick - slot.tick) * 2 >= this.map.size) {
      this.unlink(slot);
      slot.tick = ++this.tick;
      this.append(slot);
    }
    return slot.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value, key);
    if (size > this.maxSize) return;
    const slot: Slot<K, V> = { key, value, size, tick: ++this.tick, older: null, younger: null };
    this.map.set(key, slot);
    this.append(slot);
    this.total += size;
    while (this.total > this.maxSize && this.oldest) this.remove(this.oldest);
  }

  delete(key: K): boolean {
    const slot = this.map.get(key);
    if (!slot) return false;
    this.remove(slot);
    return true;
  }

  /** Deletes every entry whose value matches. */
  deleteWhere(match: (value: V) => boolean): void {
    for (let slot = this.oldest; slot; ) {
      const next = slot.younger;
      if (match(slot.value)) this.remove(slot);
      slot = next;
    }
  }

  clear(): void {
    this.map.clear();
    this.oldest = null;
    this.newest = null;
    this.total = 0;
  }

  private remove(slot: Slot<K, V>): void {
    this.map.delete(slot.key);
    this.unlink(slot);
    this.total -= slot.size;
  }

  private unlink(slot: Slot<K, V>): void {
    if (slot.older) slot.older.younger = slot.younger;
    else this.oldest = slot.younger;
    if (slot.younger) slot.younger.older = slot.older;
    else this.newest = slot.older;
    slot.older = null;
    slot.younger = null;
  }

  private append(slot: Slot<K, V>): void {
    slot.older = this.newest;
    if (this.newest) this.newest.younger = slot;
    else this.oldest = slot;
    this.newest = slot;
  }
}
