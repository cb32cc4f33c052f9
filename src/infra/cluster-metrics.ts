import { AggregatorRegistry, Gauge, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { LimiterChannel } from './ipc-limiter.ts';

/**
 * /metrics of `serve --workers N`: a scrape reaches one worker, but must describe the whole instance.
 * That worker asks the primary over the cluster's IPC channel; the primary asks every listening worker
 * for its series (prom-client's JSON form), merges them with prom-client's aggregation — each metric
 * by its `aggregator`: counters and histograms summed, gauges as each declares (infra/metrics.ts) —
 * and answers the exposition text.
 *
 * Messages are arrays led by a tag, like the limiter's, so every end tells them from other traffic:
 *   worker → primary  [SCRAPE, id]                       primary → worker  [SCRAPED, id, text]
 *   primary → worker  [COLLECT, round]                   worker → primary  [COLLECTED, round, series]
 */
const SCRAPE = 'mi:metrics';
const SCRAPED = 'mi:metrics=';
const COLLECT = 'mi:metrics?';
const COLLECTED = 'mi:metrics!';

type Series = MetricObjectWithValues<MetricValue<string>>[];

/** How long the primary waits for the workers' series; a worker that misses it is left out. */
const COLLECT_TIMEOUT_MS = 2_000;
/** How long a worker waits for the primary's answer before the scrape fails. */
const SCRAPE_TIMEOUT_MS = 4_000;

export class ClusterMetricsUnavailableError extends Error {}

/** A worker's end: answers the primary's collections and asks it for the instance's text. */
export class ClusterMetricsClient {
  readonly #channel: LimiterChannel;
  readonly #unlisten: () => void;
  readonly #pending = new Map<number, (text: string | null) => void>();
  #nextId = 0;

  constructor(channel: LimiterChannel, local: () => Promise<Series>) {
    this.#channel = channel;
    this.#unlisten = channel.listen(
      (message) => {
        if (!Array.isArray(message)) return;
        if (message[0] === COLLECT) {
          const round = message[1];
          local().then(
            (series) => channel.send([COLLECTED, round, series]),
            () => channel.send([COLLECTED, round, []]),
          );
        } else if (message[0] === SCRAPED) {
          this.#pending.get(message[1] as number)?.(String(message[2]));
        }
      },
      () => {
        for (const resolve of this.#pending.values()) resolve(null);
      },
    );
  }

  /** The exposition text of every worker of the instance. */
  async text(): Promise<string> {
    const id = this.#nextId++;
    let timer: NodeJS.Timeout | undefined;
    const text = await new Promise<string | null>((resolve) => {
      this.#pending.set(id, resolve);
      timer = setTimeout(() => resolve(null), SCRAPE_TIMEOUT_MS);
      if (this.#channel.connected) this.#channel.send([SCRAPE, id]);
      else resolve(null);
    });
    clearTimeout(timer);
    this.#pending.delete(id);
    if (text === null) throw new ClusterMetricsUnavailableError('the cluster primary did not answer');
    return text;
  }

  close(): void {
    this.#unlisten();
  }
}

/** What the primary needs of a worker: node:cluster's Worker has it. */
export interface MetricsPeer {
  send(message: unknown): unknown;
}

interface Round {
  series: Series[];
  waiting: Set<MetricsPeer>;
  finish: () => void;
}

/** The primary's end: collects from the listening workers and merges. */
export class MetricsHost {
  readonly #workers: () => MetricsPeer[];
  readonly #rounds = new Map<number, Round>();
  #nextRound = 0;

  /** `workers`: the workers that listen now (a worker still loading could not answer). */
  constructor(workers: () => MetricsPeer[]) {
    this.#workers = workers;
  }

  /** Handles `message` from `peer` when it is a metrics message; false otherwise. */
  handle(message: unknown, peer: MetricsPeer): boolean {
    if (!Array.isArray(message)) return false;
    if (message[0] === SCRAPE) {
      void this.collect().then((text) => peer.send([SCRAPED, message[1], text]));
      return true;
    }
    if (message[0] === COLLECTED) {
      const round = this.#rounds.get(message[1] as number);
      if (round?.waiting.delete(peer)) {
        round.series.push(message[2] as Series);
        if (round.waiting.size === 0) round.finish();
      }
      return true;
    }
    return false;
  }

  /** The merged text of every worker that answered within COLLECT_TIMEOUT_MS. */
  async collect(): Promise<string> {
    const id = this.#nextRound++;
    const peers = this.#workers();
    const round: Round = { series: [], waiting: new Set(peers), finish: () => {} };
    const done = new Promise<void>((resolve) => {
      round.finish = resolve;
    });
    this.#rounds.set(id, round);
    const timer = setTimeout(() => round.finish(), COLLECT_TIMEOUT_MS);
    for (const peer of peers) peer.send([COLLECT, id]);
    if (peers.length === 0) round.finish();
    await done;
    clearTimeout(timer);
    this.#rounds.delete(id);
    const merged = AggregatorRegistry.aggregate(round.series);
    const workers = new Gauge({
      name: 'market_intel_cluster_workers',
      help: 'HTTP workers of this instance by whether their series are in this scrape: reporting, or missing (no answer within 2 s).',
      labelNames: ['state'],
      registers: [merged],
    });
    workers.set({ state: 'reporting' }, round.series.length);
    workers.set({ state: 'missing' }, peers.length - round.series.length);
    return merged.metrics();
  }
}
