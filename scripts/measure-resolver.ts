/**
 * Resolver precision/recall on the labelled recipient names (see src/evaluation/resolver-eval.ts).
 *
 *   node --import tsx scripts/measure-resolver.ts [--shared DIR] [--k 5] [--threshold 0.8]
 *                                                 [--all-errors]
 *
 * The labelled sets are read from the repository's gzipped copies (data/SOURCES.md, "Test fixtures
 * outside data/"), or uncompressed from `--shared DIR` laid out as companies/ and contracts/.
 * Prints the label-set sizes, metrics with the held-out protocol (k-fold, the held-out names' aliases
 * removed), with every alias loaded and with no alias at all, a threshold sweep, and the errors.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AliasEntry, CompanyName } from '../src/domain/resolver.ts';
import { buildResolver, DEFAULT_THRESHOLD } from '../src/domain/resolver.ts';
import {
  type AliasMode,
  buildResolverLabels,
  countByNorm,
  errorsAt,
  evaluateResolver,
  type ResolverMetrics,
  summarize,
} from '../src/evaluation/resolver-eval.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { loadDemoAwards } from '../src/sources/awards.ts';
import { loadDemoCompanies } from '../src/sources/companies.ts';
import { readTextFile } from '../src/sources/files.ts';

const { values } = parseArgs({
  options: {
    shared: { type: 'string' },
    k: { type: 'string', default: '5' },
    threshold: { type: 'string', default: String(DEFAULT_THRESHOLD) },
    'all-errors': { type: 'boolean', default: false },
  },
});
const k = Number(values.k);
const threshold = Number(values.threshold);
if (!Number.isInteger(k) || k < 2) throw new Error('--k: expected an integer ≥ 2');
if (!(threshold >= 0 && threshold <= 1)) throw new Error('--threshold: expected 0..1');

const REPOSITORY = new URL('../', import.meta.url).pathname;
const COPIES: Record<string, string> = {
  'companies/usaspending_recipient_ticker_map_fy2024.csv':
    'test/fixtures/shared-data/companies/usaspending_recipient_ticker_map_fy2024.csv.gz',
  'contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv':
    'test/fixtures/shared-data/contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv.gz',
  'contracts/usaspending_legacy_datafeed_dod_fy2006_sample999.csv':
    'data/awards/usaspending_legacy_datafeed_dod_fy2006_sample999.csv.gz',
};
const labelled = (path: string) =>
  readTextFile(values.shared ? join(values.shared, path) : join(REPOSITORY, COPIES[path] ?? path));
const [recipientMapCsv, primesCsv, legacyFeedCsv, { companies, aliases }, demo] = await Promise.all([
  labelled('companies/usaspending_recipient_ticker_map_fy2024.csv'),
  labelled('contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv'),
  labelled('contracts/usaspending_legacy_datafeed_dod_fy2006_sample999.csv'),
  loadDemoCompanies(DEMO_DATA_DIR),
  loadDemoAwards(DEMO_DATA_DIR),
]);
const companyNames: CompanyName[] = companies.map((c) => ({ ticker: c.ticker, name: c.name }));
const aliasTable: AliasEntry[] = aliases.map((a) => ({
  aliasNorm: a.alias,
  ticker: a.ticker,
  source: a.source,
}));
const labels = buildResolverLabels({
  recipientMapCsv,
  primesCsv,
  legacyFeedCsv,
  universe: new Set(companies.map((c) => c.ticker)),
  awardCounts: countByNorm(demo.awards.map((a) => a.recipientName)),
});

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

out('# Resolver precision/recall');
out();
out(
  `company universe: ${companyNames.length} names; alias table (data/aliases.csv): ${aliasTable.length} rows`,
);
out(
  `labelled positives: ${labels.positives.length} distinct normalized names ` +
    `(${labels.positives.filter((p) => p.sources.includes('recipient_map_fy2024')).length} from the FY2024 map, ` +
    `${labels.positives.filter((p) => p.sources.includes('transactions_12primes')).length} from the 12-primes file; ` +
    `${labels.positives.reduce((s, p) => s + p.awards, 0)} demo awards carry them)`,
);
out(
  `hard negatives: ${labels.negatives.length} (${labels.negatives.filter((n) => n.sources.includes('legacy_datafeed_fy2006')).length} FY2006 recipients that cannot be listed, ` +
    `${labels.negatives.filter((n) => !n.sources.includes('legacy_datafeed_fy2006')).length} labelled outside the universe)`,
);
out(`disputed labels left out: ${labels.disputed.length}`);
for (const d of labels.disputed) out(`  - ${d.name} [${d.labels.join('/')}]: ${d.reason}`);
for (const p of labels.positives.filter((x) => x.note)) out(`  * ${p.name} → ${p.ticker}: ${p.note}`);
out();

const modes: [AliasMode, string][] = [
  ['held_out', `held out (${k}-fold by normalized name; the fold's aliases removed)`],
  ['all_aliases', 'all aliases loaded (in-sample: the aliases were written from these names)'],
  ['no_aliases', 'no aliases (company names only)'],
];
const header = (): void => {
  out(
    '| threshold | P | R | correct | wrong ticker | missed | false pos. (neg.) | award-weighted P | award-weighted R |',
  );
  out('|---|---|---|---|---|---|---|---|---|');
};
const row = (m: ResolverMetrics): void => {
  out(
    `| ${m.threshold.toFixed(2)} | ${pct(m.precision)} | ${pct(m.recall)} | ${m.correct}/${m.positives} | ${m.wrongTicker} | ` +
      `${m.missed} | ${m.falsePositives}/${m.negatives} | ${pct(m.awardPrecision)} | ${pct(m.awardRecall)} |`,
  );
};

const results = new Map<AliasMode, ReturnType<typeof evaluateResolver>>();
for (const [mode, title] of modes) {
  const outcomes = evaluateResolver(labels, aliasTable, companyNames, { mode, k });
  results.set(mode, outcomes);
  out(`## ${title}`);
  out();
  header();
  row(summarize(outcomes, threshold));
  out();
}

const heldOut = results.get('held_out') ?? [];
out(`## threshold sweep, held out`);
out();
header();
for (const t of [0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]) row(summarize(heldOut, t));
out();

out('## disputed names (not scored): what the resolver answers with all aliases loaded');
out();
{
  const resolver = buildResolver(aliasTable, companyNames, { threshold });
  for (const d of labels.disputed) {
    const r = resolver.resolve({ recipientName: d.name });
    out(`- ${d.name} [labelled ${d.labels.join('/')}]: ${r.ticker ?? 'none'} (${r.method} ${r.confidence})`);
  }
}
out();

for (const [mode, title] of modes) {
  const errors = errorsAt(results.get(mode) ?? [], threshold);
  out(`## errors at ${threshold.toFixed(2)}: ${title}`);
  out();
  const shown =
    values['all-errors'] || mode === 'held_out' ? errors : errors.filter((e) => e.kind !== 'missed');
  for (const e of shown) {
    const got = e.got ?? (e.candidate ? `none (best ${e.candidate} @ ${e.confidence})` : 'none');
    out(
      `- ${e.kind}: ${e.name}${e.parentName ? ` [parent ${e.parentName}]` : ''} — expected ${e.expected ?? 'none'}, ` +
        `got ${got}${e.got ? ` (${e.method} ${e.confidence})` : ''}; ${e.awards} awards${e.note ? `; ${e.note}` : ''}`,
    );
  }
  if (shown.length < errors.length)
    out(`- … and ${errors.length - shown.length} misses (--all-errors lists them)`);
  out();
}
