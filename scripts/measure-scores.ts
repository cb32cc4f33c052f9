/**
 * Signal-score distribution of both engines on the real demo data.
 *
 *   node --import tsx scripts/measure-scores.ts
 *
 * Seeds a temporary embedded PostgreSQL with the shipped data (the current resolver, classifier and engines),
 * then prints, per engine, deciles, 10-point buckets and each rule's mean contribution.
 */

import { mean, sampleStd, scoreDistribution } from '../src/evaluation/stats.ts';
import { seed } from '../src/pipeline/seed.ts';
import { openTemporaryDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { decodeRationale } from '../src/store/rows.ts';

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const db = await openTemporaryDb();
try {
  await migrate(db);
  await seed(db, { signalThreshold: 75, log });
  const rows = await db.query<{
    engine_name: string;
    engine_version: string;
    signal_score: number;
    rationale: string;
  }>(
    'SELECT engine_name, engine_version, signal_score, rationale FROM signals ORDER BY engine_name, contract_id',
  );
  const engines = [...new Set(rows.map((r) => `${r.engine_name}@${r.engine_version}`))];
  out('# Signal-score distribution on the seeded demo data');
  out();
  for (const key of engines) {
    const mine = rows.filter((r) => `${r.engine_name}@${r.engine_version}` === key);
    const d = scoreDistribution(mine.map((r) => r.signal_score));
    out(
      `## ${key}: n = ${d.n}, mean ${d.mean.toFixed(1)}, std ${d.std.toFixed(1)}, min ${d.min}, max ${d.max}, ${d.distinct} distinct values`,
    );
    out();
    out(`deciles (0 %, 10 %, …, 100 %): ${d.deciles.map((x) => x.toFixed(0)).join(', ')}`);
    out();
    out('| bucket | count | share | |');
    out('|---|---|---|---|');
    d.buckets.forEach((count, i) => {
      const share = count / d.n;
      const label = i === 9 ? '90–100' : `${i * 10}–${i * 10 + 9}`;
      out(`| ${label} | ${count} | ${(100 * share).toFixed(1)}% | ${'█'.repeat(Math.round(share * 60))} |`);
    });
    out();
    const byRule = new Map<string, number[]>();
    for (const r of mine) {
      for (const item of decodeRationale(r.rationale)) {
        const list = byRule.get(item.rule) ?? [];
        list.push(item.contribution);
        byRule.set(item.rule, list);
      }
    }
    out('| rule | mean contribution | std |');
    out('|---|---|---|');
    for (const [rule, values] of byRule) {
      out(`| ${rule} | ${mean(values).toFixed(2)} | ${sampleStd(values).toFixed(2)} |`);
    }
    out();
  }
} finally {
  await db.close();
}
