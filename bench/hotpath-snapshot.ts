/**
 * Records every output of the hot path (parse results and rejections, resolutions, labels, engine
 * outputs) on the synthetic CSV, a mangled copy of it and the demo awards, one file per part, so a
 * change meant to be output-neutral can be checked with `diff -r`. The resolver is also run on every
 * award of the file, on the real names of the shared data set (default, no-alias and threshold-0
 * resolvers) and through the labelled evaluation (all folds of every mode).
 *
 *   node --import tsx bench/hotpath-snapshot.ts OUT_DIR [--file /tmp/synth.csv]
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { classify } from '../src/domain/classifier.ts';
import { ENGINES } from '../src/domain/engines/index.ts';
import { normalizeName } from '../src/domain/names.ts';
import { buildResolver, type Resolution } from '../src/domain/resolver.ts';
import type { AwardRecord } from '../src/domain/types.ts';
import { buildResolverLabels, evaluateResolver } from '../src/evaluation/resolver-eval.ts';
import { DEMO_DATA_DIR } from '../src/pipeline/seed.ts';
import { readAwardText } from '../src/sources/award-files.ts';
import { DEMO_AWARD_SOURCES, loadDemoAwards, normalizeBulkRecord } from '../src/sources/awards.ts';
import { loadDemoCompanies } from '../src/sources/companies.ts';
import { CsvError, CsvParser, csvRecords, parseCsv, rowToObject } from '../src/sources/csv.ts';
import { readTextFile } from '../src/sources/files.ts';
import { arg, seededRandom } from './common.ts';
import { engineInputs, loadWorld, regimesByDate } from './hotpath-inputs.ts';

const OUT = process.argv[2] ?? '/tmp/snap/out';
const FILE = arg('file') ?? '/tmp/synth.csv';
const SAMPLE = 50_000;

/** The synthetic text with random damage: quotes, CR/LF/CRLF, commas, blank lines, BOM-less junk. */
function mangle(text: string, seed: number): string {
  const { rand } = seededRandom(seed);
  const inserts = [
    '"',
    '""',
    '\r',
    '\n',
    '\r\n',
    ',',
    '\n\n',
    '"x"',
    ' ',
    '$1,234.50',
    'é',
    '\u2019',
    '/DE/',
  ];
  const parts: string[] = [];
  let at = 0;
  while (at < text.length) {
    const step = 1 + Math.floor(rand() * 400);
    parts.push(text.slice(at, at + step));
    parts.push(inserts[Math.floor(rand() * inserts.length)] ?? '');
    at += step;
  }
  return parts.join('');
}

/** Streams like importAwardFile's csvItems, chunked at `size` characters. */
async function streamed(text: string, size: number): Promise<unknown[]> {
  async function* chunks(): AsyncGenerator<string> {
    for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
  }
  const out: unknown[] = [];
  let header: string[] | null = null;
  try {
    for await (const { line, fields } of csvRecords(chunks())) {
      if (!header) {
        header = fields.map((f) => f.trim());
        continue;
      }
      if (fields.length !== header.length) {
        out.push({ line, message: `expected ${header.length} fields, found ${fields.length}` });
        continue;
      }
      const r = normalizeBulkRecord(rowToObject(header, fields));
      out.push(r.ok ? r.award : { line, message: r.message });
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    out.push({ line: error.line, csvError: error.message });
  }
  return out;
}

function rawRecords(text: string): unknown {
  try {
    const parser = new CsvParser();
    return [...parser.push(text), ...parser.end()];
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function safeParseBulk(text: string): Promise<unknown> {
  try {
    return await readAwardText(text, 'csv');
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const SHARED = new URL('../../shared/data/', import.meta.url);
/** Files of the shared real-data set and the columns holding company names. */
const REAL_NAME_COLUMNS: [string, string[]][] = [
  ['contracts/doge_cancelled_contracts_2025.csv', ['vendor']],
  ['contracts/usaspending_legacy_datafeed_dod_fy2006_sample999.csv', ['vendorname', 'mod_parent']],
  ['contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv', ['recipient_name']],
  ['contracts/usaspending_top100_awards_spending_by_award.csv', ['Recipient Name']],
  ['companies/usaspending_recipient_ticker_map_fy2024.csv', ['name', 'canonical']],
  ['companies/sec_company_tickers_exchange.csv', ['name']],
  ['companies/sp500_constituents.csv', ['Security']],
];

const compact = (r: Resolution) => [r.ticker, r.confidence, r.method, r.nameNorm];

/** Recipient/parent pairs from the real files: each name alone, and paired with the row's next name. */
async function realNamePairs(): Promise<{ recipientName: string; parentName: string | null }[]> {
  const pairs: { recipientName: string; parentName: string | null }[] = [];
  for (const [file, columns] of REAL_NAME_COLUMNS) {
    const { header, rows } = parseCsv(await readFile(new URL(file, SHARED), 'utf8'));
    for (const { fields } of rows) {
      const row = rowToObject(header, fields);
      const names = columns.map((c) => row[c] ?? '').filter((n) => n.trim() !== '');
      for (const name of names) pairs.push({ recipientName: name, parentName: null });
      if (names.length === 2) pairs.push({ recipientName: names[0] ?? '', parentName: names[1] ?? '' });
    }
  }
  return pairs;
}

async function resolverParts(
  awards: readonly AwardRecord[],
  put: (name: string, value: unknown) => Promise<void>,
): Promise<void> {
  const world = await loadWorld();
  const all = world.newResolver();
  await put(
    'resolve-all.json',
    awards.map((a) => compact(all.resolve({ recipientName: a.recipientName, parentName: a.parentName }))),
  );
  const { companies, aliases } = await loadDemoCompanies(DEMO_DATA_DIR);
  const table = aliases.map((a) => ({ aliasNorm: a.alias, ticker: a.ticker, source: a.source }));
  const names = companies.map((c) => ({ ticker: c.ticker, name: c.name }));
  const pairs = await realNamePairs();
  const resolvers = {
    default: buildResolver(table, names),
    zero: buildResolver(table, names, { threshold: 0 }),
    noAliases: buildResolver([], names, { threshold: 0 }),
  };
  for (const [label, resolver] of Object.entries(resolvers)) {
    await put(
      `resolve-real-${label}.json`,
      pairs.map((p) => compact(resolver.resolve(p))),
    );
  }
  const read = async (file: string) => readFile(new URL(file, SHARED), 'utf8');
  const labels = buildResolverLabels({
    recipientMapCsv: await read('companies/usaspending_recipient_ticker_map_fy2024.csv'),
    primesCsv: await read('contracts/usaspending_transactions_12primes_2021-2025_award_dedup.csv'),
    legacyFeedCsv: await read('contracts/usaspending_legacy_datafeed_dod_fy2006_sample999.csv'),
    universe: new Set(companies.map((c) => c.ticker)),
  });
  for (const mode of ['all_aliases', 'held_out', 'no_aliases'] as const) {
    const outcomes = evaluateResolver(labels, table, names, { mode, k: 5 });
    await put(
      `resolve-eval-${mode}.json`,
      outcomes.map((o) => [o.item.name, o.fold, o.ticker, o.confidence, o.method]),
    );
  }
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const put = (name: string, value: unknown) =>
    writeFile(path.join(OUT, name), `${JSON.stringify(value, null, 0).replaceAll('},{', '},\n{')}\n`);
  const text = await readFile(FILE, 'utf8');
  const head = text.slice(0, 3_000_000);

  const parsed = await readAwardText(text, 'csv');
  await put('parse-bulk.json', parsed);
  await put('parse-stream.json', await streamed(head, 65_536));
  for (const seed of [1, 2, 3]) {
    const bad = mangle(head, seed);
    await put(`mangled-${seed}-bulk.json`, await safeParseBulk(bad));
    await put(`mangled-${seed}-records.json`, rawRecords(bad));
    await put(`mangled-${seed}-stream-7.json`, await streamed(bad, 7));
    await put(`mangled-${seed}-stream-4099.json`, await streamed(bad, 4099));
  }
  await put('parse-csv-crlf.json', parseCsv(`\uFEFF${head.replaceAll('\n', '\r\n')}`));
  await put('parse-csv-cr.json', rawRecords(head.replaceAll('\n', '\r')));

  const demo = await loadDemoAwards(DEMO_DATA_DIR);
  await put('demo-awards.json', { ...demo, provenance: [...demo.provenance] });
  for (const src of DEMO_AWARD_SOURCES) {
    await put(`demo-${src.source}.json`, src.parse(await readTextFile(path.join(DEMO_DATA_DIR, src.file))));
  }

  await resolverParts(parsed.awards, put);
  const awards: AwardRecord[] = [...parsed.awards.slice(0, SAMPLE), ...demo.awards];
  const world = await loadWorld();
  const names = awards.flatMap((a) => [a.recipientName, a.parentName ?? '']);
  await put(
    'names.json',
    names.map((nm) => [nm, normalizeName(nm)]),
  );
  const resolver = world.newResolver();
  const resolutions = awards.map((a) =>
    resolver.resolve({ recipientName: a.recipientName, parentName: a.parentName }),
  );
  await put('resolve.json', resolutions);
  // Again, with a resolver whose caches are cold for every name, in another order.
  const fresh = world.newResolver();
  await put(
    'resolve-reversed.json',
    [...awards]
      .reverse()
      .map((a) => fresh.resolve({ recipientName: a.recipientName, parentName: a.parentName })),
  );
  const labels = awards.map((a) => classify({ description: a.description, naics: a.naics, psc: a.psc }));
  await put('classify.json', labels);
  await put(
    'classify-all.json',
    parsed.awards.map((a) => classify({ description: a.description, naics: a.naics, psc: a.psc })),
  );
  const regimes = regimesByDate(
    world,
    awards.map((a) => a.awardDate),
  );
  await put('regimes.json', [...regimes]);
  const inputs = engineInputs(world, awards, resolutions, labels, regimes);
  for (const engine of ENGINES)
    await put(
      `engine-${engine.name}.json`,
      inputs.map((i) => engine.score(i)),
    );
  process.stdout.write(`wrote ${OUT}: ${awards.length} awards, ${inputs.length} scored\n`);
}

await main();
