import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats, Queryable } from '../store/db.ts';
import { type MetricFacts, metricFacts } from '../store/health.ts';
import { AnnouncementMetrics } from './announcement-metrics.ts';
import { ClusterMetricsClient } from './cluster-metrics.ts';
import { DurationHistogram } from './duration-histogram.ts';
import type { LimiterChannel } from './ipc-limiter.ts';
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

/** Which limit refused a request: a key's window (429), the keyless allowance of an address (401), sign-in or sign-up back-off (429), a user's dashboard reads (429). */
export type RefusalLimit = 'key' | 'keyless' | 'sign_in' | 'sign_up' | 'dashboard';

/** How one webhook attempt ended (see `attemptOutcome` in webhooks/worker.ts). */
export type AttemptOutcome = 'succeeded' | 'http_error' | 'timeout' | 'connection_error' | 'refused';

/** Where awards came in through a pipeline in this process. */
export type IngestSource = 'admin' | 'schedule';

/** A failover limiter counts the decisions it made alone while Redis was away. */
type CountingLimiter = RateLimiter & { localDecisions?: number };

/** A cache that counts its lookups (infra/key-cache.ts, infra/response-cache.ts). */
interface CountingCache {
  hits: number;
  misses: number;
}

/** The label of requests no route matched (404, 405): never their URL, so the series stay bounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Request durations in seconds: the API answers most reads in a few milliseconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Observe = (seconds: number) => void;

export interface MetricSources {
  limiter: CountingLimiter;
  db: Queryable & { poolStats?(): PoolStats };
  deadlineMs: number;
  /** The key and response caches, read at scrape time (the response cache is absent when off). */
  caches?: () => {
    keys: CountingCache & { size: number };
    responses: (CountingCache & { bytes: number }) | null;
  };
}

/**
 * The service's Prometheus metrics for operators: what the faults of docs/OPERATIONS.md look like as
 * series, and the requests served. Per request, one histogram observation through the observer of the
 * request's labels, made once per (route, method, status) and kept; the limiter, the caches, the pool and the
 * database are read when scraped; refusals, 503s, webhook attempts and ingests increment counters.
 */
export class ServiceMetrics {
  readonly #registry = new Registry();
  readonly #unavailable: Counter<'cause'>;
  readonly #refused: Counter<'limit'>;
  readonly #attempts: Counter<'outcome'>;
  readonly #attemptSeconds: Histogram<'outcome'>;
  readonly #ingestAwards: Counter<'source' | 'result'>;
  readonly #ingestSignals: Counter<'source'>;
  readonly #duration: DurationHistogram;
  /** route → method → status → the histogram's observer: three Map lookups per request, no key built. */
  readonly #children = new Map<string, Map<string, Map<number, Observe>>>();
  #cluster: ClusterMetricsClient | null = null;
  /** The live announcement poll's counters (pipeline/live-scheduler.ts). */
  readonly announcements: AnnouncementMetrics;

  constructor(sources: MetricSources) {
    const registers = [this.#registry];
    this.announcements = new AnnouncementMetrics(registers);
    this.#duration = new DurationHistogram({
      name: 'market_intel_http_request_duration_seconds',
      help: 'Time from the request arriving to the response sent, by method, route template (the matched route\'s URL pattern; "unmatched" for 404/405) and status code.',
      buckets: DURATION_BUCKETS,
      registers,
    });
    const duration = this.#duration;
    new Counter({
      name: 'market_intel_http_requests_total',
      help: 'Requests answered, by method, route template ("unmatched" for 404/405) and status code.',
      labelNames: ['method', 'route', 'status_code'],
      registers,
      // The histogram's counts, copied when scraped: nothing more per request.
      async collect() {
        this.reset();
        for (const sample of (await duration.get()).values) {
          if (sample.metricName === 'market_intel_http_request_duration_seconds_count')
            this.inc(sample.labels as Record<'method' | 'route' | 'status_code', string>, sample.value);
        }
      },
    });
    this.#refused = new Counter({
      name: 'market_intel_rate_limited_total',
      help: "Requests refused by a rate limit: key (429, the key's window), keyless (401, the address's allowance without a valid key), sign_in and sign_up (429, the dashboard's back-off), dashboard (429, a signed-in user's dashboard reads).",
      labelNames: ['limit'],
      registers,
    });
    for (const limit of ['key', 'keyless', 'sign_in', 'sign_up', 'dashboard'] as const)
      this.#refused.inc({ limit }, 0);
    this.#attempts = new Counter({
      name: 'market_intel_webhook_attempts_total',
      help: 'Webhook delivery attempts made by the worker in this process, by outcome: succeeded (2xx), http_error (another status, redirects included), timeout, connection_error, refused (target not allowed, webhook deleted or suspended; nothing sent).',
      labelNames: ['outcome'],
      registers,
    });
    this.#attemptSeconds = new Histogram({
      name: 'market_intel_webhook_attempt_duration_seconds',
      help: 'How long webhook attempts took, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    for (const outcome of ['succeeded', 'http_error', 'timeout', 'connection_error', 'refused'] as const)
      this.#attempts.inc({ outcome }, 0);
    this.#ingestAwards = new Counter({
      name: 'market_intel_ingest_awards_total',
      help: 'Awards through an ingest in this process (source: admin API or the schedule), by result: inserted, updated, rejected.',
      labelNames: ['source', 'result'],
      registers,
    });
    this.#ingestSignals = new Counter({
      name: 'market_intel_ingest_signals_created_total',
      help: 'Signals created by ingests in this process (source: admin API or the schedule).',
      labelNames: ['source'],
      registers,
    });
    for (const source of ['admin', 'schedule'] as const) {
      this.#ingestSignals.inc({ source }, 0);
      for (const result of ['inserted', 'updated', 'rejected'] as const)
        this.#ingestAwards.inc({ source, result }, 0);
    }
    const { caches } = sources;
    if (caches) {
      new Counter({
        name: 'market_intel_cache_lookups_total',
        help: 'Lookups in the key cache (keys) and the response cache (responses), by result: hit or miss. Lookups made while the caches are bypassed (notification bus down) are not counted.',
        labelNames: ['cache', 'result'],
        registers,
        collect() {
          const { keys, responses } = caches();
          this.reset();
          this.inc({ cache: 'keys', result: 'hit' }, keys.hits);
          this.inc({ cache: 'keys', result: 'miss' }, keys.misses);
          if (responses) {
            this.inc({ cache: 'responses', result: 'hit' }, responses.hits);
            this.inc({ cache: 'responses', result: 'miss' }, responses.misses);
          }
        },
      });
      new Gauge({
        name: 'market_intel_key_cache_entries',
        help: 'Keys held in the key cache.',
        registers,
        collect() {
          this.set(caches().keys.size);
        },
      });
      new Gauge({
        name: 'market_intel_response_cache_bytes',
        help: 'Bytes held by the response cache (absent when it is off).',
        registers,
        collect() {
          const { responses } = caches();
          this.reset();
          if (responses) this.set(responses.bytes);
        },
      });
    }
    const { db } = sources;
    const pool = db.poolStats?.bind(db);
    if (pool) {
      const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(read(pool()));
          },
        });
      poolGauge(
        'market_intel_db_pool_connections',
        'Connections the PostgreSQL pool of this process holds open (idle and in use).',
        (s) => s.total,
      );
      poolGauge('market_intel_db_pool_idle_connections', 'Open pool connections not in use.', (s) => s.idle);
      poolGauge(
        'market_intel_db_pool_waiting_queries',
        'Queries and transactions waiting for a pool connection (the pool is at its maximum).',
        (s) => s.waiting,
      );
      poolGauge(
        'market_intel_db_pool_max_connections',
        "The pool's maximum number of connections.",
        (s) => s.max,
      );
    }
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
      help: '1 while the rate limiter decides in its store (Redis, the cluster primary, memory); 0 while Redis is away and each process decides alone (in a cluster: 0 when any worker decides alone).',
      labelNames: ['store'],
      registers,
      aggregator: 'min',
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
      help: '1 when the database answered the scrape within its deadline (in a cluster: every worker).',
      registers,
      aggregator: 'min',
      async collect() {
        this.set((await once()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'market_intel_webhook_oldest_due_seconds',
      help: 'How long the oldest due delivery that no worker is sending has waited (0 when none).',
      registers,
      aggregator: 'max',
      async collect() {
        const f = await once();
        if (f) this.set(f.webhookLagS ?? 0);
      },
    });
    new Gauge({
      name: 'market_intel_webhook_deliveries_due',
      help: 'Deliveries due now (pending or retrying, attempt time reached).',
      registers,
      aggregator: 'max',
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
      aggregator: 'max',
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
      aggregator: 'max',
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

  /**
   * One answered request: `route` is the matched route's URL pattern or UNMATCHED_ROUTE, never a raw
   * URL. The observer of each (route, method, status) is made once and kept.
   */
  request(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.#children.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.#children.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let observe = byStatus.get(status);
    if (!observe) {
      observe = this.#duration.series({ method, route, status_code: String(status) });
      byStatus.set(status, observe);
    }
    observe(seconds);
  }

  rateLimited(limit: RefusalLimit): void {
    this.#refused.inc({ limit });
  }

  webhookAttempt(outcome: AttemptOutcome, seconds: number): void {
    this.#attempts.inc({ outcome });
    this.#attemptSeconds.observe({ outcome }, seconds);
  }

  ingested(
    source: IngestSource,
    counts: { inserted: number; updated: number; rejected: number; signals_created: number },
  ): void {
    this.#ingestAwards.inc({ source, result: 'inserted' }, counts.inserted);
    this.#ingestAwards.inc({ source, result: 'updated' }, counts.updated);
    this.#ingestAwards.inc({ source, result: 'rejected' }, counts.rejected);
    this.#ingestSignals.inc({ source }, counts.signals_created);
  }

  /**
   * In a cluster worker: /metrics answers for every worker of the instance (infra/cluster-metrics.ts),
   * this process's series being collected with the others'.
   */
  joinCluster(channel: LimiterChannel): ClusterMetricsClient {
    this.#cluster = new ClusterMetricsClient(channel, () => this.series());
    return this.#cluster;
  }

  /** This process's series, as prom-client's aggregation takes them. */
  async series() {
    const [own, process] = await Promise.all([
      this.#registry.getMetricsAsJSON(),
      processMetrics().getMetricsAsJSON(),
    ]);
    return [...process, ...own];
  }

  /** The exposition text of this app's and the process's series, or of the whole cluster's. */
  async text(): Promise<{ contentType: string; body: string }> {
    const contentType = this.#registry.contentType;
    if (this.#cluster) return { contentType, body: await this.#cluster.text() };
    const merged = Registry.merge([processMetrics(), this.#registry]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }
}
