import type { Histogram, Registry } from 'prom-client';

/** One label set's counts: per bucket (not cumulative), their total and the sum of what was observed. */
interface Series {
  labels: Record<string, string>;
  buckets: Float64Array;
  sum: number;
  count: number;
}

/** A sample as prom-client's Histogram#get() gives it (labels splayed, `le` first). */
interface Sample {
  value: number;
  metricName: string;
  exemplar: null | undefined;
  labels: Record<string, string | number>;
}

export interface DurationHistogramOptions {
  name: string;
  help: string;
  /** Upper bounds, ascending. */
  buckets: readonly number[];
  registers: Registry[];
}

/**
 * A histogram whose series are fixed once: `series(labels)` returns the observer of one label set, and
 * an observation is a bucket's count, the total and the sum, nothing more. prom-client's own child
 * rebuilds the label hash and validates the labels at every observation (3.4 µs per request in the
 * read path's profile, docs/EVALUATION.md "Read-path tail"). Exported as prom-client exports its
 * Histogram — the same samples in the same order, so the same /metrics text and the same JSON for a
 * cluster's aggregation (test/infra/duration-histogram.test.ts holds the two equal).
 */
export class DurationHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: readonly number[];
  /** In the order of their first observation, as prom-client lists its series. */
  #series: Series[] = [];
  /** Moves at each reset: an observer kept across one starts its series anew. */
  #generation = 0;

  constructor(options: DurationHistogramOptions) {
    this.name = options.name;
    this.help = options.help;
    this.#bounds = [...options.buckets];
    // prom-client's registries take their own metric classes; they use of one only what is here.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Histogram);
  }

  /** The observer of one label set, its series listed from its first observation on. */
  series(labels: Record<string, string>): (value: number) => void {
    const bounds = this.#bounds;
    let series: Series | null = null;
    let generation = this.#generation;
    return (value: number) => {
      if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
      if (!series || generation !== this.#generation) {
        series = { labels: { ...labels }, buckets: new Float64Array(bounds.length), sum: 0, count: 0 };
        generation = this.#generation;
        this.#series.push(series);
      }
      let i = 0;
      while (i < bounds.length && value > (bounds[i] as number)) i += 1;
      if (i < bounds.length) series.buckets[i] = (series.buckets[i] as number) + 1;
      series.sum += value;
      series.count += 1;
    };
  }

  /** The samples as prom-client's Histogram#get(): per series its cumulative buckets, +Inf, sum, count. */
  async get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    values: Sample[];
    aggregator: 'sum';
  }> {
    const values: Sample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { labels, buckets, sum, count } of this.#series) {
      let cumulative = 0;
      this.#bounds.forEach((le, i) => {
        cumulative += buckets[i] as number;
        values.push({ value: cumulative, metricName: bucketName, exemplar: null, labels: { le, ...labels } });
      });
      values.push(
        { value: count, metricName: bucketName, exemplar: null, labels: { le: '+Inf', ...labels } },
        { value: sum, metricName: `${this.name}_sum`, exemplar: undefined, labels: { ...labels } },
        { value: count, metricName: `${this.name}_count`, exemplar: undefined, labels: { ...labels } },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** What prom-client's reset does: every series forgotten (an observer kept starts a new one). */
  reset(): void {
    this.#series = [];
    this.#generation += 1;
  }
}
