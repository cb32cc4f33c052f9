/**
 * `evaluate [--engine E] [--version V] [--out DIR]`: the event study (docs/EVALUATION.md) on the stored
 * signals and candles. Writes REPORT.md, chart.svg and events.csv to DIR (default
 * ./reports/evaluation-<engine>/); progress goes to stderr, the report path to stdout.
 *
 * `evaluate --source announcements [--rule R] [--from D] [--to D] [--out DIR]`: the announcement study
 * of the stored DoD announcement events dated from D to D (default: all stored), scored by the
 * committed rule R (`ann-size-1`, the default: evaluation/announcement-score.ts; `ann-dv-1`:
 * evaluation/announcement-dv.ts) and priced from the shipped closes files; the same three files go to
 * DIR (default ./reports/evaluation-announcements/, with `-ann-dv-1` appended for that rule).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { say } from './cli-errors.ts';
import { type Config, ConfigError } from './config.ts';
import { defaultEngine, engineNames, getEngine } from './domain/engines/index.ts';
import { DV_SCORE_VERSION, dollarVolumeRule } from './evaluation/announcement-dv.ts';
import { evaluateAnnouncements } from './evaluation/announcement-evaluation.ts';
import {
  renderEvaluationCsv,
  renderEvaluationMarkdown,
  renderEvaluationSvg,
} from './evaluation/announcement-evaluation-report.ts';
import { ANNOUNCEMENT_SCORE_VERSION } from './evaluation/announcement-score.ts';
import { renderEventsCsv, renderMarkdown, renderSvg } from './evaluation/event-report.ts';
import { DEFAULT_BENCHMARKS, runEventStudy } from './evaluation/event-study.ts';
import { EVIDENCE_BENCHMARKS, evidenceOf } from './evaluation/evidence.ts';
import { renderPlaceboMarkdown } from './evaluation/placebo-report.ts';
import { isIsoDate } from './sources/candles.ts';
import { loadStudyCloses, WIDE_CLOSES_FILE } from './sources/closes.ts';
import { DOLLAR_VOLUME_FILE, loadDollarVolume } from './sources/dollar-volume.ts';
import { type Db, openDb } from './store/db.ts';
import { clusterOf } from './store/embedded-postgres.ts';
import {
  announcementCoverage,
  announcementEvents,
  priceSeries,
  saveEventStudy,
  scoredEvents,
  signalVersions,
} from './store/evaluation.ts';

const SOURCES = ['signals', 'announcements'] as const;

type Values = Partial<Record<'source' | 'engine' | 'version' | 'out' | 'from' | 'to' | 'rule', string>>;

/** The announcement rules `--rule` names. */
const ANNOUNCEMENT_RULES = [ANNOUNCEMENT_SCORE_VERSION, DV_SCORE_VERSION] as const;

export async function evaluateCommand(args: string[], config: Config): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      source: { type: 'string' },
      engine: { type: 'string' },
      version: { type: 'string' },
      out: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      rule: { type: 'string' },
    },
  });
  const source = values.source ?? 'signals';
  if (source === 'announcements') return evaluateAnnouncementsCommand(values, config);
  if (source !== 'signals') {
    throw new ConfigError('--source', `expected ${SOURCES.join(' or ')}, got "${source}"`);
  }
  for (const name of ['from', 'to', 'rule'] as const) {
    if (values[name] !== undefined) throw new ConfigError(`--${name}`, 'only with --source announcements');
  }
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
    const tickers = [...new Set(events.map((e) => e.ticker)), ...DEFAULT_BENCHMARKS, ...EVIDENCE_BENCHMARKS];
    const candles = await priceSeries(db, tickers);
    say(
      `evaluate: candles for ${[...candles.values()].filter((c) => c.length > 0).length} of ${candles.size} tickers`,
    );
    const result = runEventStudy(events, candles);
    const evidence = evidenceOf(events, candles);
    if (evidence.placebo) say(`evaluate: ${evidence.placebo.verdict}`);
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
        : `embedded PostgreSQL ${clusterOf(config.dataDir)}`,
    };
    await mkdir(outDir, { recursive: true });
    await Promise.all([
      writeFile(
        path.join(outDir, 'REPORT.md'),
        renderMarkdown(result, meta) +
          (evidence.placebo
            ? `\n${renderPlaceboMarkdown(evidence.placebo, `top − bottom bucket over +${evidence.placebo.horizon}d against ${evidence.placebo.benchmark}`).join('\n')}`
            : ''),
      ),
      writeFile(path.join(outDir, 'chart.svg'), renderSvg(result, meta)),
      writeFile(path.join(outDir, 'events.csv'), renderEventsCsv(result)),
    ]);
    say(`evaluate: wrote REPORT.md, chart.svg, events.csv`);
    // The dashboard's Evidence page reads the same study, over its own windows and benchmarks.
    await saveEventStudy(db, {
      engine: engine.name,
      version,
      computedAt: new Date().toISOString(),
      contracts: events.length,
      summary: JSON.stringify(evidence),
    });
    say(`evaluate: stored the study for the dashboard's Evidence page`);
    process.stdout.write(`${path.join(outDir, 'REPORT.md')}\n`);
  } finally {
    await db.close();
  }
}

/** Bad dates and options fail before the database is opened (exit 2). */
function announcementPeriod(values: Values): { from?: string; to?: string; rule: string } {
  for (const name of ['engine', 'version'] as const) {
    if (values[name] !== undefined) {
      throw new ConfigError(
        `--${name}`,
        'not with --source announcements: its score is fixed (announcement-score.ts)',
      );
    }
  }
  for (const name of ['from', 'to'] as const) {
    const value = values[name];
    if (value !== undefined && !isIsoDate(value)) {
      throw new ConfigError(`--${name}`, `expected a date YYYY-MM-DD, got "${value}"`);
    }
  }
  if (values.from !== undefined && values.to !== undefined && values.from > values.to) {
    throw new ConfigError('--from', `${values.from} is after --to ${values.to}`);
  }
  const rule = values.rule ?? ANNOUNCEMENT_SCORE_VERSION;
  if (!(ANNOUNCEMENT_RULES as readonly string[]).includes(rule)) {
    throw new ConfigError('--rule', `expected ${ANNOUNCEMENT_RULES.join(' or ')}, got "${rule}"`);
  }
  return { from: values.from, to: values.to, rule };
}

async function evaluateAnnouncementsCommand(values: Values, config: Config): Promise<void> {
  const asked = announcementPeriod(values);
  const dv = asked.rule === DV_SCORE_VERSION;
  const outDir = path.resolve(
    values.out ?? path.join('reports', `evaluation-announcements${dv ? `-${DV_SCORE_VERSION}` : ''}`),
  );
  const db: Db = await openDb(config, { attach: true, log: say });
  try {
    const coverage = await announcementCoverage(db);
    if (coverage.first === null || coverage.last === null) {
      throw new ConfigError(
        '--source',
        'no announcements in the database; run `ingest announcements --file F` first',
      );
    }
    const period = { from: asked.from ?? coverage.first, to: asked.to ?? coverage.last };
    const rows = await announcementEvents(db, period.to);
    say(
      `evaluate: ${rows.length} announcement events with a ticker up to ${period.to} (pages ${coverage.first} … ${coverage.last})`,
    );
    const closes = await loadStudyCloses();
    const evaluation = dv
      ? evaluateAnnouncements(
          rows,
          coverage.first,
          closes,
          period,
          dollarVolumeRule(await loadDollarVolume()),
        )
      : evaluateAnnouncements(rows, coverage.first, closes, period);
    say(
      `evaluate: ${evaluation.result.events} of ${evaluation.inPeriod} events from ${period.from} to ${period.to} studied`,
    );
    if (evaluation.placebo) say(`evaluate: ${evaluation.placebo.verdict}`);
    const meta = {
      source: config.databaseUrl
        ? 'PostgreSQL (DATABASE_URL)'
        : `embedded PostgreSQL ${clusterOf(config.dataDir)}`,
      prices: `yfinance adjusted closes (split- and dividend-adjusted), data/${WIDE_CLOSES_FILE}; SPY and ITA adj_close from data/candles/ (ITA's before 2020-10-26 without dividends)${dv ? `; dollar volume from data/${DOLLAR_VOLUME_FILE}` : ''}`,
    };
    await mkdir(outDir, { recursive: true });
    await Promise.all([
      writeFile(path.join(outDir, 'REPORT.md'), renderEvaluationMarkdown(evaluation, meta)),
      writeFile(path.join(outDir, 'chart.svg'), renderEvaluationSvg(evaluation)),
      writeFile(path.join(outDir, 'events.csv'), renderEvaluationCsv(evaluation)),
    ]);
    say('evaluate: wrote REPORT.md, chart.svg, events.csv');
    process.stdout.write(`${path.join(outDir, 'REPORT.md')}\n`);
  } finally {
    await db.close();
  }
}
