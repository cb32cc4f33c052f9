/**
 * `evaluate [--engine E] [--version V] [--out DIR]`: the event study (docs/EVALUATION.md) on the stored
 * signals and candles. Writes REPORT.md, chart.svg and events.csv to DIR (default
 * ./reports/evaluation-<engine>/); progress goes to stderr, the report path to stdout.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { say } from './cli-errors.ts';
import { type Config, ConfigError } from './config.ts';
import { defaultEngine, engineNames, getEngine } from './domain/engines/index.ts';
import { renderEventsCsv, renderMarkdown, renderSvg } from './evaluation/event-report.ts';
import { DEFAULT_BENCHMARKS, runEventStudy } from './evaluation/event-study.ts';
import { openDb } from './store/db.ts';
import { CLUSTER_DIR } from './store/embedded-postgres.ts';
import { priceSeries, scoredEvents, signalVersions } from './store/evaluation.ts';

export async function evaluateCommand(args: string[], config: Config): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { engine: { type: 'string' }, version: { type: 'string' }, out: { type: 'string' } },
  });
  const engine = values.engine === undefined ? defaultEngine() : getEngine(values.engine);
  if (!engine) {
    throw new ConfigError(
      '--engine',
      `unknown engine "${values.engine}"; known engines: ${engineNames().join(', ')}`,
    );
  }
  const outDir = path.resolve(values.out ?? path.join('reports', `evaluation-${engine.name}`));
  const db = await openDb(config, { attach: true, log: say });
  try {
    const version = values.version ?? engine.version;
    const events = await scoredEvents(db, engine.name, version);
    if (events.length === 0) {
      const known = await signalVersions(db, engine.name);
      throw new ConfigError(
        '--version',
        `no ${engine.name} ${version} signals in the database` +
          (known.length ? ` (it has ${known.map((k) => `${k.version}: ${k.signals}`).join(', ')})` : '') +
          '; run `seed` or `score` first',
      );
    }
    say(`evaluate: ${events.length} contracts scored by ${engine.name} ${version}`);
    const tickers = [...new Set(events.map((e) => e.ticker)), ...DEFAULT_BENCHMARKS];
    const candles = await priceSeries(db, tickers);
    say(
      `evaluate: candles for ${[...candles.values()].filter((c) => c.length > 0).length} of ${candles.size} tickers`,
    );
    const result = runEventStudy(events, candles);
    for (const panel of result.panels) {
      say(
        `evaluate: ${panel.benchmark} +${panel.horizon}d: ${panel.priced} priced, ${result.contracts - panel.priced} excluded`,
      );
    }
    const meta = {
      engine: engine.name,
      version,
      source: config.databaseUrl
        ? 'PostgreSQL (DATABASE_URL)'
        : `embedded PostgreSQL ${path.join(config.dataDir, CLUSTER_DIR)}`,
    };
    await mkdir(outDir, { recursive: true });
    await Promise.all([
      writeFile(path.join(outDir, 'REPORT.md'), renderMarkdown(result, meta)),
      writeFile(path.join(outDir, 'chart.svg'), renderSvg(result, meta)),
      writeFile(path.join(outDir, 'events.csv'), renderEventsCsv(result)),
    ]);
    say(`evaluate: wrote REPORT.md, chart.svg, events.csv`);
    process.stdout.write(`${path.join(outDir, 'REPORT.md')}\n`);
  } finally {
    await db.close();
  }
}
