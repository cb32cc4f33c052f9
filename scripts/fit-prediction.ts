/**
 * Fits and judges the prediction engine's interval (src/domain/prediction.ts) on the shipped candles.
 *
 *   node --import tsx scripts/fit-prediction.ts fit    # in sample: every candidate's width at calibrated quantiles
 *   node --import tsx scripts/fit-prediction.ts test   # out of sample, once: the committed constants
 *
 * Units: every contractor ticker of data/candles on every SPY trading day of the period as day 0
 * (contractors announce on most days, so a day is an event day as often as not). `fit` calibrates each
 * candidate's quantiles on the fit period and prints its mean width; the narrowest is committed.
 */

import {
  type ModelParams,
  PREDICTION_MODEL,
  type PricePoint,
  predictAt,
  realizedAt,
} from '../src/domain/prediction.ts';
import { quantile } from '../src/evaluation/stats.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { loadDemoCandles } from '../src/sources/candles.ts';

const BENCHMARKS = new Set(['SPY', 'XLI', 'ITA']);
const M = PREDICTION_MODEL;

interface Unit {
  scale: number;
  unit: number;
  realized: number;
}

function units(
  series: Map<string, PricePoint[]>,
  calendar: PricePoint[],
  period: { from: string; to: string },
  params: ModelParams,
): Unit[] {
  const out: Unit[] = [];
  for (const [ticker, points] of series) {
    if (BENCHMARKS.has(ticker)) continue;
    calendar.forEach((day, t) => {
      if (day.date < period.from || day.date > period.to) return;
      const p = predictAt(points, calendar, t, params);
      const realized = realizedAt(points, calendar, t, params.horizonDays);
      if (p.ok && realized !== null) out.push({ scale: p.scale, unit: p.unit, realized });
    });
  }
  return out;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
const tails = [(1 - M.level) / 2, (1 + M.level) / 2] as const;

async function main(): Promise<void> {
  const mode = process.argv[2];
  const candles = await loadDemoCandles(DEMO_DATA_DIR);
  const series = new Map(
    [...candles].map(([t, list]) => [t, list.map((c) => ({ date: c.date, adjClose: c.adjClose }))]),
  );
  const calendar = series.get(M.benchmark) ?? [];
  if (mode === 'fit') {
    const uncond = sorted(units(series, calendar, M.fit, M).map((u) => u.realized));
    const [u0, u1] = tails.map((q) => quantile(uncond, q));
    console.log(
      `unconditional ${(u0 ?? 0).toFixed(4)} … ${(u1 ?? 0).toFixed(4)}, width ${pct((u1 ?? 0) - (u0 ?? 0))}`,
    );
    for (const [short, power] of [10, 20, 60].flatMap((s) => [0.25, 0.5, 0.75, 1].map((p) => [s, p]))) {
      for (const weight of [0, 0.25, 0.5, 0.75, 1]) {
        const params = { ...M, short: short ?? 20, power: power ?? 1, weight };
        const list = units(series, calendar, M.fit, params);
        const z = sorted(list.map((u) => u.realized / u.unit));
        const [qLow, qHigh] = tails.map((q) => quantile(z, q)) as [number, number];
        const width = list.reduce((s, u) => s + (qHigh - qLow) * u.unit, 0) / list.length;
        console.log(
          `short ${short} power ${power} weight ${weight}: n ${list.length}, q ${qLow.toFixed(4)} ${qHigh.toFixed(4)}, mean width ${pct(width)}`,
        );
      }
    }
    return;
  }
  if (mode !== 'test') throw new Error('usage: fit-prediction.ts fit|test');
  const fitUncond = sorted(units(series, calendar, M.fit, M).map((u) => u.realized));
  const list = units(series, calendar, M.test, M);
  const inside = list.filter((u) => u.realized >= M.qLow * u.unit && u.realized <= M.qHigh * u.unit);
  const width = list.reduce((s, u) => s + (M.qHigh - M.qLow) * u.unit, 0) / list.length;
  const own = sorted(list.map((u) => u.realized));
  const [u0, u1] = tails.map((q) => quantile(fitUncond, q)) as [number, number];
  const uncondInside = list.filter((u) => u.realized >= u0 && u.realized <= u1).length;
  const spread = (xs: number[]) => quantile(xs, tails[1]) - quantile(xs, tails[0]);
  console.log(
    `test ${M.test.from} → ${M.test.to}: n ${list.length}, coverage ${pct(inside.length / list.length)} (level ${pct(M.level)}), ` +
      `mean width ${pct(width)}, unconditional interval (fit period) width ${pct(spread(fitUncond))} coverage ${pct(uncondInside / list.length)}, test period's own spread ${pct(spread(own))}`,
  );
}

await main();
