import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Queryable } from '../store/db.ts';
import { type MetricFacts, metricFacts } from '../store/health.ts';
import type { RateLimiter } from './limiter.ts';

/** Node's process metrics (CPU, memory, event loop, GC), once per process whatever the apps in it. */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'market_intel_' });
  }
  return processRegistry;
}

/** Why a request was answered 503. */
export type UnavailableCause = 'db' | 'limiter' | 'busy';

/** A failover limiter counts the decisions it made alone while Redis was away. */
type CountingLimiter = RateLimiter & { localDecisions?: number };

/**
 * The service's Prometheus metrics for operators: what the faults of docs/OPERATIONS.md look like as
 * series. Nothing here runs per request on the serving path: the limiter and the database are read
 * when scraped, and only a 503 increments a counter.
 */
export class ServiceMetrics {
  readonly #registry = new Registry();
  readonly #unavailable: Counter<'cause'>;

  constructor(sources: { limiter: CountingLimiter; db: Queryable; deadlineMs: number }) {
    const registers = [this.#registry];
    this.#unavailable = new Counter({
      name: 'market_intel_unavailable_responses_total',
      help: 'Requests answered 503, by cause: the database, the rate limiter, or load shedding.',
      labelNames: ['cause'],
      registers,
    });
    for (const cause of ['db', 'limiter', 'busy'] as const) this.#unavailable.inc({ cause }, 0);
    const { limiter } = sources;
    new Gauge({
      name: 'market_intel_limiter_ok',
      help: '1 while the rate limiter decides in its store (Redis, the cluster primary, memory); 0 while Redis is away and each process decides alone.',
      labelNames: ['store'],
      registers,
      collect() {
        const state = limiter.state?.() ?? { ok: true, store: 'memory' };
        this.reset();
        this.set({ store: state.store }, state.ok ? 1 : 0);
      },
    });
    new Counter({
      name: 'market_intel_limiter_local_decisions_total',
      help: 'Rate-limit decisions this process made alone because Redis did not answer.',
      registers,
      collect() {
        this.reset();
        this.inc(limiter.localDecisions ?? 0);
      },
    });
    // One query per scrape, under a deadline: a scrape during an outage answers with db_up 0.
    const facts = async (): Promise<MetricFacts | null> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), sources.deadlineMs);
      });
      try {
        return await Promise.race([metricFacts(sources.db).catch(() => null), late]);
      } finally {
        clearTimeout(timer);
      }
    };
    let scrape: Promise<MetricFacts | null> | null = null;
    const once = () => {
      scrape ??= facts().finally(() => {
        setImmediate(() => {
          scrape = null;
        });
      });
      return scrape;
    };
    new Gauge({
      name: 'market_intel_db_up',
      help: '1 when the database answered the scrape within its deadline.',
      registers,
      async collect() {
        this.set((await once()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'market_intel_webhook_oldest_due_seconds',
      help: 'How long the oldest due delivery that no worker is sending has waited (0 when none).',
      registers,
      async collect() {
        const f = await once();
        if (f) this.set(f.webhookLagS ?? 0);
      },
    });
    new Gauge({
      name: 'market_intel_webhook_deliveries_due',
      help: 'Deliveries due now (pending or retrying, attempt time reached).',
      registers,
      async collect() {
        const f = await once();
        if (f) this.set(f.deliveriesDue);
      },
    });
    new Gauge({
      name: 'market_intel_webhooks',
      help: 'Webhooks not deleted, by status: active, failing (last attempt failed) or suspended.',
      labelNames: ['status'],
      registers,
      async collect() {
        const f = await once();
        if (!f) return;
        for (const status of ['active', 'failing', 'suspended'] as const)
          this.set({ status }, f.webhooks[status] ?? 0);
      },
    });
    new Gauge({
      name: 'market_intel_ingest_last_progress_timestamp_seconds',
      help: 'When a scheduled (last-modified-date) USASpending ingest last saved progress; absent before the first.',
      registers,
      async collect() {
        const f = await once();
        this.reset();
        if (f?.ingestProgressAt) this.set(Date.parse(f.ingestProgressAt) / 1000);
      },
    });
  }

  unavailable(cause: UnavailableCause): void {
    this.#unavailable.inc({ cause });
  }

  /** The exposition text of this app's and the process's series. */
  async text(): Promise<{ contentType: string; body: string }> {
    const merged = Registry.merge([processMetrics(), this.#registry]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }
}
