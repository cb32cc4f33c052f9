/**
 * Node's CPU per award on the in-process part of an ingest, stage by stage, on the synthetic bulk CSV
 * of bench/ingest-throughput.ts (no database):
 *   parse (readAwardText, and the streaming csvRecordBatches → columnPicker → normalizeBulkRecord path of
 *   importAwardFile) → resolve (a fresh resolver) → classify → score with each engine (matched awards;
 *   regimes and trailing statistics computed beforehand, outside the timings) → every engine again with
 *   each rationale encoded for storage, as the scoring loop does.
 *
 *   npm run -s bench:ingest -- --generate /tmp/synth.csv --count 300000
 *   npm run bench:node -- [--file /tmp/synth.csv] [--chunk 65536]
 *
 * Profile with: node --cpu-prof --max-semi-space-size=64 --import tsx bench/node-hotpath.ts
 */
import { readFile } from 'node:fs/promises';
import { classify } from '../src/domain/classifier.ts';
import { ENGINES } from '../src/domain/engines/index.ts';
import type { Resolution } from '../src/domain/resolver.ts';
import {
  type AwardRecord,
  type ClassificationLabel,
  type EngineOutput,
  engineKey,
} from '../src/domain/types.ts';
import { readAwardText } from '../src/sources/award-files.ts';
import { BULK_COLUMNS, normalizeBulkRecord } from '../src/sources/awards.ts';
import { columnPicker, csvRecordBatches } from '../src/sources/csv.ts';
import { encodeRationale } from '../src/store/rows.ts';
import { arg, fmtInt, numberArg, summary, table } from './common.ts';
import { engineInputs, loadWorld, regimesByDate } from './hotpath-inputs.ts';

const FILE = arg('file') ?? '/tmp/synth.csv';
/** createReadStream's default highWaterMark: the chunk size importAwardFile decodes. */
const CHUNK_BYTES = Math.max(1, Math.floor(numberArg('chunk', 65_536)));

interface Stage {
  name: string;
  ms: number;
  items: number;
}

/** CPU time (user + system, GC threads included) rather than wall time: other work on the machine skews less. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function timed<T>(stages: Stage[], name: string, items: number, fn: () => T): T {
  const start = process.cpuUsage();
  const result = fn();
  stages.push({ name, ms: cpuMs(start), items });
  return result;
}

async function timedAsync<T>(stages: Stage[], name: string, items: number, fn: () => Promise<T>): Promise<T> {
  const start = process.cpuUsage();
  const result = await fn();
  stages.push({ name, ms: cpuMs(start), items });
  return result;
}

/** The file's bytes decoded chunk by chunk, as importAwardFile's textChunks does. */
async function* decodedChunks(bytes: Buffer): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    const text = decoder.decode(bytes.subarray(at, at + CHUNK_BYTES), { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** What csvItems in pipeline/import.ts does per record (header check aside). */
async function streamAwards(bytes: Buffer): Promise<{ awards: number; rejected: number }> {
  let header: string[] | null = null;
  let pick: ((fields: readonly string[]) => Record<string, string>) | null = null;
  let awards = 0;
  let rejected = 0;
  for await (const records of csvRecordBatches(decodedChunks(bytes))) {
    for (const { fields } of records) {
      if (!header || !pick) {
        header = fields.map((f) => f.trim());
        pick = columnPicker(header, BULK_COLUMNS);
        continue;
      }
      if (fields.length !== header.length) {
        rejected += 1;
        continue;
      }
      const result = normalizeBulkRecord(pick(fields));
      if (result.ok) awards += 1;
      else rejected += 1;
    }
  }
  return { awards, rejected };
}

async function main(): Promise<void> {
  const world = await loadWorld();
  const bytes = await readFile(FILE);
  const text = bytes.toString('utf8');
  const stages: Stage[] = [];

  const parsed = await timedAsync(stages, 'parse: readAwardText (whole text)', 0, () =>
    readAwardText(text, 'csv'),
  );
  const awards: AwardRecord[] = parsed.awards;
  const n = awards.length;
  (stages[0] as Stage).items = n;
  const streamed = await timedAsync(stages, 'parse: streaming (importAwardFile path)', n, () =>
    streamAwards(bytes),
  );
  if (streamed.awards !== n || parsed.rejected.length > 0) {
    throw new Error(
      `parse paths disagree: ${n} vs ${streamed.awards} awards, ${parsed.rejected.length} rejected`,
    );
  }

  const resolver = world.newResolver();
  const resolutions: Resolution[] = timed(stages, 'resolve (fresh resolver)', n, () =>
    awards.map((a) => resolver.resolve({ recipientName: a.recipientName, parentName: a.parentName })),
  );
  // Only a pair's first appearance does the fuzzy work; later ones are cache hits.
  const pairs = new Set(awards.map((a) => `${a.recipientName}\u0000${a.parentName ?? ''}`)).size;
  const labels: ClassificationLabel[] = timed(stages, 'classify (first pass)', n, () =>
    awards.map((a) => classify({ description: a.description, naics: a.naics, psc: a.psc })),
  );
  timed(stages, 'classify (texts made unique: cold)', n, () => {
    for (const [i, a] of awards.entries()) {
      classify({ description: `${a.description ?? ''} #${i}`, naics: a.naics, psc: a.psc });
    }
  });

  const regimes = regimesByDate(
    world,
    awards.map((a) => a.awardDate),
  );
  const inputs = engineInputs(world, awards, resolutions, labels, regimes);
  for (const engine of ENGINES) {
    timed(stages, `score: ${engine.name} (matched awards)`, inputs.length, () => {
      for (const input of inputs) engine.score(input);
    });
  }
  // What the scoring loop does per matched contract: every engine's output, its rationale encoded for storage.
  timed(stages, 'store form: every engine, rationale encoded', inputs.length, () => {
    const outputs = new Map<string, EngineOutput>();
    for (const input of inputs) {
      outputs.clear();
      for (const engine of ENGINES) {
        const output = engine.score(input, outputs);
        if (!output) continue;
        outputs.set(engineKey(engine), output);
        encodeRationale(output.rationale);
      }
    }
  });

  const perAward = (ms: number) => ((1000 * ms) / n).toFixed(2);
  const rows = stages.map((s) => [
    s.name,
    fmtInt(s.items),
    fmtInt(s.ms),
    ((1000 * s.ms) / Math.max(1, s.items)).toFixed(2),
    perAward(s.ms),
  ]);
  const byName = (prefix: string) => stages.filter((s) => s.name.startsWith(prefix));
  const sum = (list: Stage[]) => list.reduce((t, s) => t + s.ms, 0);
  const hotpath =
    sum(byName('parse: streaming')) +
    sum(byName('resolve')) +
    sum(byName('classify (texts')) +
    sum(byName('store form'));
  const lines = [
    `${FILE}: ${fmtInt(n)} awards, ${fmtInt(inputs.length)} matched; streaming chunks of ${fmtInt(CHUNK_BYTES)} bytes`,
    '',
    table(['stage', 'items', 'CPU ms', 'µs/item', 'µs/award'], rows),
    '',
    `resolve: ${((1000 * sum(byName('resolve'))) / pairs).toFixed(1)} µs per distinct recipient/parent pair (${fmtInt(pairs)})`,
    `streaming parse + resolve + cold classify + both engines with encoded rationales: ${perAward(hotpath)} µs/award`,
  ];
  process.stdout.write(summary('node hot path', lines));
}

await main();
