/**
 * DurationHistogram against prom-client's Histogram fed the same observations: the same /metrics text
 * byte for byte, the same JSON (what a cluster's primary aggregates), the same after a reset.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { DurationHistogram } from '../../src/infra/duration-histogram.ts';

const NAME = 'market_intel_http_request_duration_seconds';
const HELP = 'Time from the request arriving to the response sent, with "quotes" and a \\ backslash.';
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = { method: string; route: string; status_code: string };

const SERIES: Labels[] = [
  { method: 'GET', route: '/api/v1/events', status_code: '200' },
  { method: 'GET', route: '/api/v1/companies/:id', status_code: '404' },
  { method: 'POST', route: 'unmatched', status_code: '405' },
  { method: 'GET', route: '/api/v1/"odd"\\route\nx', status_code: '200' },
];

/** Values on, under and over every bound, zero, and tiny or odd sums. */
const VALUES = [
  0,
  0.0001,
  0.001,
  0.0010001,
  0.003,
  0.01,
  0.07,
  0.1,
  1 / 3,
  1,
  2.5,
  9.99,
  10,
  10.5,
  3600,
  1e-9,
];

/** Both histograms, each in its own registry, fed the same observations through kept observers. */
function pair() {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram<keyof Labels>({
    name: NAME,
    help: HELP,
    labelNames: ['method', 'route', 'status_code'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const histogram = new DurationHistogram({ name: NAME, help: HELP, buckets: BUCKETS, registers: [ours] });
  const observers = SERIES.map((labels) => ({
    theirs: reference.labels(labels).observe,
    ours: histogram.series(labels),
  }));
  const observe = (seed: number, count: number) => {
    for (let i = 0; i < count; i += 1) {
      // Series in a shuffled first-use order, values from the list in a stride.
      const o = observers[(seed + i * 3) % observers.length];
      const value = VALUES[(seed * 7 + i * 5) % VALUES.length] as number;
      o?.theirs(value);
      o?.ours(value);
    }
  };
  return { theirs, ours, reference, histogram, observe };
}

describe('DurationHistogram', () => {
  test('exports the text and JSON of prom-client’s Histogram', async () => {
    const { theirs, ours, observe } = pair();
    assert.equal(await ours.metrics(), await theirs.metrics(), 'no series yet');
    observe(1, 1);
    assert.equal(await ours.metrics(), await theirs.metrics(), 'one series');
    observe(2, 997);
    const text = await ours.metrics();
    assert.equal(text, await theirs.metrics());
    assert.match(text, /_bucket\{le="0.001",method="GET",route="\/api\/v1\/events",status_code="200"\} \d+/);
    assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
  });

  test('merged with other registries and aggregated over a cluster, as prom-client’s', async () => {
    const a = pair();
    const b = pair();
    a.observe(3, 400);
    b.observe(5, 600);
    const process = new Registry();
    new Histogram({ name: 'other_seconds', help: 'Another.', buckets: [1], registers: [process] }).observe(
      0.5,
    );
    assert.equal(
      await Registry.merge([process, a.ours]).metrics(),
      await Registry.merge([process, a.theirs]).metrics(),
    );
    const aggregate = async (registries: Registry[]) =>
      AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON()))).metrics();
    assert.equal(await aggregate([a.ours, b.ours]), await aggregate([a.theirs, b.theirs]));
  });

  test('a reset forgets every series; a kept observer starts its own anew', async () => {
    const { theirs, ours, reference, histogram, observe } = pair();
    observe(7, 300);
    reference.reset();
    histogram.reset();
    assert.equal(await ours.metrics(), await theirs.metrics());
    observe(11, 50);
    assert.equal(await ours.metrics(), await theirs.metrics());
  });

  test('refuses what is not a finite number, as prom-client does', () => {
    const { reference, histogram } = pair();
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => reference.labels(SERIES[0] as Labels).observe(value), TypeError);
      assert.throws(() => histogram.series(SERIES[0] as Labels)(value), TypeError);
    }
  });
});
