import { CHANNELS, type NotificationBus } from '../store/notifications.ts';
import { Lru } from './lru.ts';

export interface CachedResponse {
  body: Buffer;
  etag: string;
  contentType: string;
  /** The `Link` header the 200 carried (a list's next page), if any. */
  link?: string;
}

export interface ResponseCacheOptions {
  /** No bus (caches off): nothing is kept. */
  bus: NotificationBus | null;
  /** Bound on the bodies and keys held. Default 64 MiB. */
  maxBytes?: number;
}

/** What an entry costs besides its body and key: the objects around them. */
const ENTRY_OVERHEAD = 200;

/**
 * Serialized 200 bodies of the read endpoints, least recently used first out when over `maxBytes`.
 * Valid for one data version: migration 015's statement triggers notify each write to a table those
 * endpoints read, and each notification, like each change of the bus's health, starts a new version
 * and empties the cache. A body computed while the version moved is not kept.
 */
export class ResponseCache {
  private readonly entries: Lru<string, CachedResponse>;
  private version = 0;
  private readonly unsubscribe: (() => void)[] = [];
  hits = 0;
  misses = 0;

  /** The bound on what the entries hold, in bytes. */
  get maxBytes(): number {
    return this.entries.maxSize;
  }

  constructor(private readonly options: ResponseCacheOptions) {
    this.entries = new Lru(
      options.maxBytes ?? 64 * 1024 * 1024,
      (entry, key) => entry.body.length + key.length + entry.etag.length + ENTRY_OVERHEAD,
    );
    const bus = options.bus;
    if (bus) {
      this.unsubscribe.push(
        bus.subscribe(CHANNELS.data, () => this.invalidate()),
        bus.onHealthChange(() => this.invalidate()),
      );
    }
  }

  /** A kept response, while the bus vouches for the version. */
  get(key: string): CachedResponse | undefined {
    if (!this.options.bus?.healthy) return undefined;
    const hit = this.entries.get(key);
    if (hit) this.hits += 1;
    else this.misses += 1;
    return hit;
  }

  /** The version a response about to be computed belongs to; null when it may not be kept. */
  begin(): number | null {
    return this.options.bus?.healthy ? this.version : null;
  }

  /** Keeps a response computed from `version`, if that is still the current one. */
  put(key: string, version: number, response: CachedResponse): void {
    if (version !== this.version || !this.options.bus?.healthy) return;
    this.entries.set(key, response);
  }

  invalidate(): void {
    this.version += 1;
    this.entries.clear();
  }

  /** Bytes held. */
  get bytes(): number {
    return this.entries.size;
  }

  close(): void {
    for (const off of this.unsubscribe) off();
    this.entries.clear();
  }
}
