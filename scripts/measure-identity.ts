/**
 * Point-in-time identity: coverage of the shipped awards and of the 2014–2019 DoD announcements (share
 * of events and dollars resolved, the rest split by why), and era-correct precision on the labelled
 * (name, date) events of docs/evaluation/identity-labels.csv (labelling guide: docs/EVALUATION.md).
 *
 *   node --import tsx scripts/measure-identity.ts [--sample N]
 *
 * `--sample N` prints N candidate (name, date) events per source with the resolver's answer, the
 * starting point of new labels (each must then be checked against a public source).
 */
import { parseArgs } from 'node:util';
import {
  coverageOf,
  type IdentityEvent,
  labelledPrecision,
  readLabels,
} from '../src/evaluation/identity-eval.ts';
import { loadIdentityEvaluation } from '../src/evaluation/identity-inputs.ts';

const { values } = parseArgs({ options: { sample: { type: 'string' } } });
const { dated, undated, awards, announcements } = await loadIdentityEvaluation();

if (values.sample) {
  const n = Number(values.sample);
  for (const [source, events] of [
    ['awards', awards],
    ['announcements', announcements],
  ] as const) {
    for (const e of spread(events, n)) {
      const r = dated.resolveAt({
        recipientName: e.name,
        parentName: e.parent,
        date: e.date,
        basis: 'award_date',
      });
      process.stdout.write(`${source}\t${e.date}\t${e.name}\t${r.ticker ?? ''}\t${r.reason ?? ''}\n`);
    }
  }
} else {
  for (const [label, events] of [
    ['shipped awards', awards],
    ['announcements 2014-08 … 2019-03', announcements],
  ] as const) {
    const c = coverageOf(dated, events);
    process.stdout.write(`\n${label}: ${c.events} events, $${(c.dollars / 1e9).toFixed(1)} B\n`);
    for (const row of c.rows) {
      process.stdout.write(
        `  ${row.why.padEnd(16)} ${String(row.events).padStart(7)} events ${(row.eventShare * 100).toFixed(1).padStart(5)} %   ` +
          `$${(row.dollars / 1e9).toFixed(1).padStart(7)} B ${(row.dollarShare * 100).toFixed(1).padStart(5)} %\n`,
      );
    }
  }
  const labels = await readLabels();
  const p = labelledPrecision(dated, labels);
  process.stdout.write(
    `\nlabelled events: ${p.labelled} (${p.withTicker} whose owner then had a ticker)\n` +
      `  resolved ${p.resolved}; era-correct ${p.correct}: precision ${(p.precision * 100).toFixed(1)} %, ` +
      `recall ${(p.recall * 100).toFixed(1)} %; no-ticker labels left without a ticker ${p.noTickerKept}/${p.noTicker}\n`,
  );
  for (const e of p.errors) process.stdout.write(`  ✗ ${e}\n`);
  const u = labelledPrecision(undated, labels);
  process.stdout.write(
    `without the identity data (today's owner): resolved ${u.resolved}, era-correct ${u.correct}: ` +
      `precision ${(u.precision * 100).toFixed(1)} %, recall ${(u.recall * 100).toFixed(1)} %\n`,
  );
}

/** n events spread over the dates (every k-th by date), distinct names first. */
function spread(events: readonly IdentityEvent[], n: number): IdentityEvent[] {
  const seen = new Set<string>();
  const distinct = events.filter((e) => {
    if (seen.has(e.name)) return false;
    seen.add(e.name);
    return true;
  });
  const step = Math.max(1, Math.floor(distinct.length / n));
  return distinct.filter((_, i) => i % step === 0).slice(0, n);
}
