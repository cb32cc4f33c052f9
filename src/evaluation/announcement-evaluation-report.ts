/** REPORT.md, chart.svg and events.csv of `evaluate --source announcements` (deterministic output). */
import { csvField } from '../sources/csv.ts';
import {
  ANNOUNCEMENT_BAR,
  type AnnouncementEvaluation,
  barVerdict,
  type Contrast,
  SCORE_GROUPING,
  scoreContrast,
} from './announcement-evaluation.ts';
import { renderAnnouncementMarkdown } from './announcement-report.ts';
import {
  OWNERSHIP_EXCLUSIONS,
  PRICE_SERIES_EXCLUSIONS,
  UNIVERSE_EXCLUSION_TEXT,
  type UniverseExclusion,
} from './announcement-score.ts';
import { type BenchmarkSpec, benchmarkLabel, resultKey } from './announcement-study.ts';
import {
  abnormalCell,
  esc,
  fmt,
  gridLines,
  HEIGHT,
  MARGIN,
  niceRange,
  num,
  pct,
  WIDTH,
} from './event-report.ts';
import { renderPlaceboMarkdown } from './placebo-report.ts';

export interface EvaluationMeta {
  /** Where the events came from, e.g. "PostgreSQL (DATABASE_URL)". */
  source: string;
  /** Where the prices came from. */
  prices: string;
}

const cut = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : '∞');
const contrastText = (c: Contrast | null): string =>
  c ? `${c.diff >= 0 ? '+' : ''}${pct(c.diff)} (t ${num(c.t)}, ${c.n} events, ${c.dates} dates)` : '–';

/** The headline benchmarks: the sector ETF, ITA for its basis, and the SPY market model. */
const HEADLINE: readonly BenchmarkSpec[] = [
  { ticker: 'XAR', model: 'adjusted' },
  { ticker: 'ITA', model: 'adjusted' },
  { ticker: 'SPY', model: 'market' },
];

export function renderEvaluationMarkdown(evaluation: AnnouncementEvaluation, meta: EvaluationMeta): string {
  const { result, period } = evaluation;
  const lines: string[] = [];
  const push = (line = ''): void => {
    lines.push(line);
  };
  const verdict = barVerdict(evaluation);
  push(`# Announcement study: ${evaluation.version}, ${period.from} → ${period.to}`);
  push();
  push(
    `${result.events} announcement events studied of ${evaluation.inPeriod} stored events with a ticker dated in the period. ` +
      `Events: ${meta.source}. Prices: ${meta.prices}.`,
  );
  push();
  push(`**Score (${evaluation.version}).** ${evaluation.describe}.`);
  push(
    `Quartile cut points ${evaluation.cuts.map(cut).join(', ')} (${evaluation.cutsSource}), applied unchanged` +
      (evaluation.periodCuts
        ? `; this period's own quartile cut points would be ${evaluation.periodCuts.map(cut).join(', ')} (not used).`
        : '.'),
  );
  push();
  push('## The bar');
  push();
  push(
    `Top − bottom score quartile over ${ANNOUNCEMENT_BAR.window} against XAR (market-adjusted) ≥ +${pct(ANNOUNCEMENT_BAR.minDiff)} with a date-clustered`,
  );
  push(
    `t ≥ ${ANNOUNCEMENT_BAR.minT}, and the same sign under the SPY market model: XAR ${contrastText(verdict.xar)}; SPY market model`,
  );
  push(`${contrastText(verdict.spyMarket)}. **${verdict.met ? 'Met.' : 'Not met.'}**`);
  push();
  push('Top − bottom score quartile (Q4 − Q1), mean abnormal return (t clustered by day 0, events, dates):');
  push();
  push(`| window | ${HEADLINE.map(benchmarkLabel).join(' | ')} |`);
  push(`|---|${HEADLINE.map(() => '---').join('|')}|`);
  for (const window of result.windows) {
    push(
      `| ${window.label} | ${HEADLINE.map((b) => contrastText(scoreContrast(evaluation, b, window.label, SCORE_GROUPING))).join(' | ')} |`,
    );
  }
  push();
  if (evaluation.placebo) {
    const against = `Q4 − Q1 over 0→+5 against ${evaluation.placebo.benchmark}`;
    for (const line of renderPlaceboMarkdown(evaluation.placebo, against)) push(line);
  }
  push('## Study universe');
  push();
  push('| | events |');
  push('|---|---|');
  push(`| stored events with a ticker dated in the period | ${evaluation.inPeriod} |`);
  for (const reason of Object.keys(UNIVERSE_EXCLUSION_TEXT) as UniverseExclusion[]) {
    const count = evaluation.excluded[reason];
    if (count) push(`| left out: ${UNIVERSE_EXCLUSION_TEXT[reason]} | ${count} |`);
  }
  push(`| studied | ${result.events} |`);
  push();
  push('Price series that are another company before a date:');
  push();
  for (const x of PRICE_SERIES_EXCLUSIONS) push(`- ${x.ticker} before ${x.before}: ${x.why}.`);
  push();
  push(
    "Recipients the resolver gives to a later owner (left out of the study and of the owner's trailing total):",
  );
  push();
  for (const x of OWNERSHIP_EXCLUSIONS)
    push(`- ${x.ticker}, recipients matching \`${x.recipient.source}\`, before ${x.before}: ${x.why}.`);
  push();
  // The study's own rendering follows under this report's title.
  push('## Study');
  push();
  push(
    renderAnnouncementMarkdown(result, {
      engine: 'announcements',
      version: evaluation.version,
      source: meta.source,
    }).replace(/^# [^\n]*\n\n/, ''),
  );
  return `${lines.join('\n').trimEnd()}\n`;
}

/** One row per studied event: score, quartile and, per benchmark and window, the AR or why it is missing. */
export function renderEvaluationCsv(evaluation: AnnouncementEvaluation): string {
  const { result } = evaluation;
  const keys = result.benchmarks.flatMap((b) => result.windows.map((w) => ({ b, w, key: resultKey(b, w) })));
  const grouping = result.groupings.find((g) => g.name === SCORE_GROUPING);
  const header = [
    'id',
    'ticker',
    'date',
    'kind',
    'page_value',
    'trailing_value',
    'score',
    'relative_size',
    'quartile',
  ];
  for (const { b, w } of keys) header.push(`ar_${b.ticker}_${b.model}_${w.from}_${w.to}`.toLowerCase());
  const lines = [header.join(',')];
  const number = (x: number | null): string => (x === null ? '' : Number.isFinite(x) ? String(x) : 'inf');
  for (const row of result.rows) {
    const e = row.event;
    const s = evaluation.scores.get(e.id);
    const cells = [
      e.id,
      e.ticker,
      e.date,
      e.kind,
      number(s?.pageValue ?? null),
      number(s?.trailingValue ?? null),
      number(e.score),
      number(e.relativeSize),
      grouping?.groupOf(e) ?? '',
    ];
    for (const { key } of keys) cells.push(abnormalCell(row.results.get(key)));
    lines.push(cells.map(csvField).join(','));
  }
  return `${lines.join('\n')}\n`;
}

// -------------------------------------------------------------------------------------------------
// SVG: mean AR by score quartile for each window, one panel per headline benchmark, ±1.96 clustered SE.

const COLORS = ['#bab0ac', '#4e79a7', '#f28e2b', '#59a14f'];
const CHART_BENCHMARKS: readonly BenchmarkSpec[] = [
  { ticker: 'XAR', model: 'adjusted' },
  { ticker: 'SPY', model: 'market' },
];

export function renderEvaluationSvg(evaluation: AnnouncementEvaluation): string {
  const { result } = evaluation;
  const panels = new Map(result.panels.map((p) => [resultKey(p.benchmark, p.window), p]));
  const summary = (b: BenchmarkSpec, windowIndex: number) => {
    const window = result.windows[windowIndex];
    if (!window) return undefined;
    return panels.get(resultKey(b, window))?.groupings.find((g) => g.name === SCORE_GROUPING);
  };
  const labels = result.groupings.find((g) => g.name === SCORE_GROUPING)?.labels ?? [];
  const extents: number[] = [0];
  for (const b of CHART_BENCHMARKS) {
    result.windows.forEach((_, wi) => {
      for (const g of summary(b, wi)?.groups ?? []) {
        if (g.n === 0 || !Number.isFinite(g.mean)) continue;
        const half = Number.isFinite(g.se) ? 1.96 * g.se : 0;
        extents.push(g.mean - half, g.mean + half);
      }
    });
  }
  const [lo, hi, step] = niceRange(Math.min(...extents), Math.max(...extents));
  const gap = 40;
  const plotW =
    (WIDTH - MARGIN.left - MARGIN.right - gap * (CHART_BENCHMARKS.length - 1)) / CHART_BENCHMARKS.length;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const y = (v: number): number => MARGIN.top + ((hi - v) / (hi - lo)) * plotH;
  const title = `Mean abnormal return by score quartile — ${evaluation.version}, ${evaluation.period.from} → ${evaluation.period.to}`;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<title>${esc(title)}</title>`);
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`);
  out.push(
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`,
  );
  out.push(
    `<text x="${WIDTH / 2}" y="38" text-anchor="middle" fill="#555">${esc(
      'day 0 = the close before the 17:00 page; bars: mean AR, whiskers: ±1.96 standard errors clustered by day 0; n under each quartile (0→+5)',
    )}</text>`,
  );
  CHART_BENCHMARKS.forEach((benchmark, pi) => {
    const x0 = MARGIN.left + pi * (plotW + gap);
    out.push('<g>');
    out.push(
      `<text x="${fmt(x0 + plotW / 2)}" y="${MARGIN.top - 4}" text-anchor="middle" font-weight="bold">${esc(benchmarkLabel(benchmark))}</text>`,
    );
    out.push(...gridLines({ lo, hi, step }, y, x0, plotW, pi === 0));
    const slotW = plotW / Math.max(1, labels.length);
    const barW = (slotW * 0.7) / Math.max(1, result.windows.length);
    labels.forEach((label, gi) => {
      const sx = x0 + gi * slotW + slotW * 0.15;
      result.windows.forEach((window, wi) => {
        const g = summary(benchmark, wi)?.groups[gi];
        if (!g || g.n === 0 || !Number.isFinite(g.mean)) return;
        const bx = sx + wi * barW;
        const top = y(Math.max(0, g.mean));
        const bottom = y(Math.min(0, g.mean));
        out.push(
          `<rect x="${fmt(bx)}" y="${fmt(top)}" width="${fmt(barW - 2)}" height="${fmt(Math.max(0.5, bottom - top))}" fill="${COLORS[wi % COLORS.length]}"><title>${esc(
            `${benchmarkLabel(benchmark)} ${window.label}, ${label}: mean ${pct(g.mean)}, n ${g.n}, ${g.dates} dates, t ${num(g.t)}`,
          )}</title></rect>`,
        );
        if (Number.isFinite(g.se) && g.se > 0) {
          const cx = fmt(bx + (barW - 2) / 2);
          out.push(
            `<line x1="${cx}" x2="${cx}" y1="${fmt(y(g.mean + 1.96 * g.se))}" y2="${fmt(y(g.mean - 1.96 * g.se))}" stroke="#222"/>`,
          );
        }
      });
      const n =
        summary(
          benchmark,
          result.windows.findIndex((w) => w.label === ANNOUNCEMENT_BAR.window),
        )?.groups[gi]?.n ?? 0;
      out.push(
        `<text x="${fmt(x0 + gi * slotW + slotW / 2)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${esc(label)}</text>`,
      );
      out.push(
        `<text x="${fmt(x0 + gi * slotW + slotW / 2)}" y="${HEIGHT - MARGIN.bottom + 30}" text-anchor="middle" fill="#777">n=${n}</text>`,
      );
    });
    out.push('</g>');
  });
  const legendY = HEIGHT - 14;
  result.windows.forEach((window, i) => {
    const lx = MARGIN.left + i * 110;
    out.push(
      `<rect x="${lx}" y="${legendY - 10}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`,
    );
    out.push(`<text x="${lx + 18}" y="${legendY}">${esc(window.label)}</text>`);
  });
  out.push(
    `<text x="${WIDTH - MARGIN.right}" y="${legendY}" text-anchor="end" fill="#777">score quartile (x) · abnormal return (y)</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
