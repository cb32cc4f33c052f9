import type { KeyPrincipal } from '../store/accounts.ts';
import { CHANNELS, type NotificationBus } from '../store/notifications.ts';
import { Lru } from './lru.ts';

export interface KeyCacheOptions {
  /** No bus (caches off): every lookup reads the database. */
  bus: NotificationBus | null;
  /** Default 10,000 keys. */
  maxEntries?: number;
  /**
   * The longest an entry is trusted even if no notification arrives. Default 60 s. Each entry gets
   * between three quarters of it and all of it, at random, so that keys first used together (a
   * restart, a burst of new keys) are not all reloaded in the same instant.
   */
  ttlMs?: number;
  /** Monotonic milliseconds (tests move it). */
  clock?: () => number;
}

interface Entry {
  principal: KeyPrincipal;
  expiresAt: number;
}

/**
 * Key hash → principal (key, owner's plan and admin flag, revoked or not), in this process. Only keys
 * found are kept, so a new key works at once. Migration 015's triggers notify every change to a key
 * or its owner in the writing transaction; the entry is dropped when the notification arrives. While
 * the bus is unhealthy every lookup reads the database, and each change of its health empties the
 * cache: a revocation sent during a gap was never seen.
 */
export class KeyCache {
  private readonly entries: Lru<string, Entry>;
  private readonly ttlMs: number;
  private readonly clock: () => number;
  /** Moves on every invalidation: a read that began before one does not fill the cache. */
  private generation = 0;
  private readonly unsubscribe: (() => void)[] = [];
  /** Reads under way, by key hash. */
  private readonly loading = new Map<string, { generation: number; found: Promise<KeyPrincipal | null> }>();
  hits = 0;
  misses = 0;

  constructor(private readonly options: KeyCacheOptions) {
    this.entries = new Lru(options.maxEntries ?? 10_000);
    this.ttlMs = options.ttlMs ?? 60_000;
    this.clock = options.clock ?? (() => performance.now());
    const bus = options.bus;
    if (bus) {
      this.unsubscribe.push(
        bus.subscribe(CHANNELS.keys, (payload) => this.invalidate(payload)),
        bus.onHealthChange(() => this.invalidate('all')),
      );
    }
  }

  /**
   * The cached principal of `hash` when the bus vouches for it and the entry is fresh; undefined when
   * only find() can tell (not cached, expired, or the bus unhealthy).
   */
  peek(hash: string): KeyPrincipal | undefined {
    if (!this.options.bus?.healthy) return undefined;
    const entry = this.entries.get(hash);
    if (!entry || entry.expiresAt <= this.clock()) return undefined;
    this.hits += 1;
    return entry.principal;
  }

  /** The principal of `hash`, from the cache when the bus vouches for it, else from `load`. */
  async find(hash: string, load: () => Promise<KeyPrincipal | null>): Promise<KeyPrincipal | null> {
    if (!this.options.bus?.healthy) return load();
    const cached = this.peek(hash);
    if (cached) return cached;
    this.misses += 1;
    // One read per key at a time: concurrent requests with a key not yet cached wait for the same one,
    // if it began after the latest invalidation (else it may predate a revocation: a new read starts).
    const under = this.loading.get(hash);
    if (under && under.generation === this.generation) return under.found;
    const found = this.load(hash, load);
    const entry = { generation: this.generation, found };
    this.loading.set(hash, entry);
    const done = () => {
      if (this.loading.get(hash) === entry) this.loading.delete(hash);
    };
    found.then(done, done);
    return found;
  }

  private async load(hash: string, load: () => Promise<KeyPrincipal | null>): Promise<KeyPrincipal | null> {
    const generation = this.generation;
    const found = await load();
    if (found && this.generation === generation && this.options.bus?.healthy) {
      Object.freeze(found.scopes);
      const ttl = this.ttlMs * (0.75 + 0.25 * Math.random());
      this.entries.set(hash, { principal: Object.freeze(found), expiresAt: this.clock() + ttl });
    }
    return found;
  }

  /** `key:<id>`, `user:<id>`; anything else empties the cache. */
  invalidate(payload: string): void {
    this.generation += 1;
    const [kind, id] = payload.split(':', 2);
    if (kind === 'key' && id) this.entries.deleteWhere((e) => e.principal.id === id);
    else if (kind === 'user' && id) this.entries.deleteWhere((e) => e.principal.user_id === id);
    else this.entries.clear();
  }

  get size(): number {
    return this.entries.count;
  }

  close(): void {
    for (const off of this.unsubscribe) off();
    this.entries.clear();
  }
}
