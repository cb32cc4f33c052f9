/** Markdown, SVG and CSV renderings of an event study (no dependencies, deterministic output). */
import { csvField } from '../sources/csv.ts';
import { type EventStudyResult, EXCLUSION_TEXT, type GroupStats, panelKey } from './event-study.ts';

export interface ReportMeta {
  engine: string;
  version: string;
  /** Where the data came from, e.g. "embedded PostgreSQL ./data/postgres" or "PostgreSQL (DATABASE_URL)". */
  source: string;
}

export const pct = (x: number, digits = 2): string =>
  Number.isFinite(x) ? `${(100 * x).toFixed(digits)}%` : '–';
export const num = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : '–');

export function renderMarkdown(result: EventStudyResult, meta: ReportMeta): string {
  const lines: string[] = [];
  const push = (line = ''): void => {
    lines.push(line);
  };
  const dates = result.rows.map((r) => r.event.awardDate).sort();
  push(`# Event study: ${meta.engine} ${meta.version}`);
  push();
  push(
    `${result.contracts} scored contracts (award dates ${dates[0] ?? '–'} … ${dates[dates.length - 1] ?? '–'}), ` +
      `data: ${meta.source}. Buckets of signal_score: ${result.buckets.map((b) => b.label).join(', ')}.`,
  );
  push();
  push(
    '**Method.** Day 0 = the first trading day on or after the award date. Window return over days 0..+h =',
  );
  push(
    "adj_close(day h) / adj_close(day −1) − 1; abnormal return (AR) = the ticker's window return minus the",
  );
  push(
    "benchmark's over the same dates (market-adjusted, no beta). A contract is priced only when the ticker and",
  );
  push(
    "the benchmark both have a candle on every trading day from day −1 to day h (the benchmark's calendar);",
  );
  push('otherwise it is excluded and counted below, never filled. t = mean / (std / √n) over contracts;');
  push(
    't (events) is the same over (ticker, day 0) clusters — same-day awards of one company are one market',
  );
  push('event, so the contract-level t overstates the evidence. Top − bottom: Welch t over clusters.');
  push();
  push(
    '**Caveat.** Award dates are contract action/obligation dates from USAspending, not public announcement dates:',
  );
  push(
    'many awards are announced later (or never), some were known earlier, so a reaction may fall outside the',
  );
  push(
    'window or before day 0. Windows of awards close in time overlap, so buckets are not independent samples.',
  );
  push();
  for (const panel of result.panels) {
    push(`## ${panel.benchmark}, days 0..+${panel.horizon}`);
    push();
    push('| bucket | contracts | events | mean AR | median AR | std | t | t (events) | AR > 0 |');
    push('|---|---|---|---|---|---|---|---|---|');
    for (const g of [...panel.groups, panel.all]) push(groupRow(g));
    push();
    if (panel.topMinusBottom) {
      const first = result.buckets[0]?.label ?? '';
      const last = result.buckets[result.buckets.length - 1]?.label ?? '';
      push(
        `Top − bottom (${last} minus ${first}): ${pct(panel.topMinusBottom.diff)} (Welch t over events ${num(panel.topMinusBottom.t)}).`,
      );
      push();
    }
    push(
      `Priced ${panel.priced} of ${result.contracts}; excluded: ${exclusionText(panel.excluded, EXCLUSION_TEXT) || 'none'}.`,
    );
    push();
  }
  return `${lines.join('\n')}\n`;
}

function groupRow(g: GroupStats): string {
  return (
    `| ${g.label} | ${g.n} | ${g.events} | ${pct(g.mean)} | ${pct(g.median)} | ${pct(g.std)} | ${num(g.t)} | ` +
    `${num(g.tEvents)} | ${pct(g.positiveShare, 1)} |`
  );
}

/** "12 no candles for the ticker at all; 3 …", most frequent reason first. */
export function exclusionText<R extends string>(
  excluded: Partial<Record<R, number>>,
  text: Readonly<Record<R, string>>,
): string {
  return (Object.entries(excluded) as [R, number | undefined][])
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([reason, count]) => `${count} ${text[reason]}`)
    .join('; ');
}

/** One row per contract: its bucket and, per benchmark and horizon, the AR or the exclusion reason. */
export function renderEventsCsv(result: EventStudyResult): string {
  const keys = result.benchmarks.flatMap((b) => result.horizons.map((h) => panelKey(b, h)));
  const header = ['contract_id', 'ticker', 'award_date', 'signal_score', 'bucket', 'day0'];
  for (const k of keys) header.push(`ar_${k.replace(':', '_')}`);
  const lines = [header.join(',')];
  for (const row of result.rows) {
    const day0 = [...row.results.values()].find((r) => r.ok);
    const cells = [
      row.event.contractId,
      row.event.ticker,
      row.event.awardDate,
      String(row.event.score),
      row.bucket,
      day0?.ok ? day0.day0 : '',
    ];
    for (const k of keys) cells.push(abnormalCell(row.results.get(k)));
    lines.push(cells.map(csvField).join(','));
  }
  return `${lines.join('\n')}\n`;
}

// -------------------------------------------------------------------------------------------------
// SVG: one panel per benchmark, mean AR per bucket for each horizon, ±1.96 standard errors.

/** The charts' frame, shared by every study's SVG. */
export const WIDTH = 960;
export const HEIGHT = 440;
export const MARGIN = { top: 56, right: 24, bottom: 64, left: 64 };
const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759'];

export const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
export const fmt = (x: number): string => (Math.round(x * 10) / 10).toString();

/** A panel's horizontal grid (the zero line darker), with percent labels on the first panel. */
export function gridLines(
  range: { lo: number; hi: number; step: number },
  y: (v: number) => number,
  x0: number,
  width: number,
  labelled: boolean,
): string[] {
  const out: string[] = [];
  for (let v = range.lo; v <= range.hi + range.step / 2; v += range.step) {
    const yy = fmt(y(v));
    out.push(
      `<line x1="${fmt(x0)}" x2="${fmt(x0 + width)}" y1="${yy}" y2="${yy}" stroke="${Math.abs(v) < range.step / 2 ? '#333' : '#ddd'}"/>`,
    );
    if (labelled)
      out.push(`<text x="${fmt(x0 - 6)}" y="${yy}" dy="4" text-anchor="end">${(100 * v).toFixed(1)}%</text>`);
  }
  return out;
}

/** One abnormal return as a CSV cell: six decimals, or why the event was left out. */
export const abnormalCell = (
  r: { ok: true; abnormal: number } | { ok: false; reason: string } | undefined,
): string => (r === undefined ? '' : r.ok ? r.abnormal.toFixed(6) : `excluded:${r.reason}`);

export function renderSvg(result: EventStudyResult, meta: ReportMeta): string {
  const panels = result.benchmarks.map((b) => result.panels.filter((p) => p.benchmark === b));
  const extents: number[] = [0];
  for (const panel of result.panels) {
    for (const g of panel.groups) {
      if (g.n === 0 || !Number.isFinite(g.mean)) continue;
      const se = g.n > 1 && Number.isFinite(g.std) ? (1.96 * g.std) / Math.sqrt(g.n) : 0;
      extents.push(g.mean - se, g.mean + se);
    }
  }
  const [lo, hi, step] = niceRange(Math.min(...extents), Math.max(...extents));
  const plotW = (WIDTH - MARGIN.left - MARGIN.right - 40 * (panels.length - 1)) / Math.max(1, panels.length);
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const y = (v: number): number => MARGIN.top + ((hi - v) / (hi - lo)) * plotH;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
  );
  out.push(
    `<title>${esc(`Event study: ${meta.engine} ${meta.version}, mean abnormal return by signal-score bucket`)}</title>`,
  );
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`);
  out.push(
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${esc(
      `Mean abnormal return by signal-score bucket — ${meta.engine} ${meta.version}`,
    )}</text>`,
  );
  out.push(
    `<text x="${WIDTH / 2}" y="38" text-anchor="middle" fill="#555">${esc(
      'days 0..+h after the award date; bars: mean AR, whiskers: ±1.96 standard errors (contracts); n under each bucket',
    )}</text>`,
  );
  panels.forEach((group, pi) => {
    const x0 = MARGIN.left + pi * (plotW + 40);
    const benchmark = group[0]?.benchmark ?? '';
    out.push(`<g>`);
    out.push(
      `<text x="${fmt(x0 + plotW / 2)}" y="${MARGIN.top - 4}" text-anchor="middle" font-weight="bold">vs ${esc(benchmark)}</text>`,
    );
    out.push(...gridLines({ lo, hi, step }, y, x0, plotW, pi === 0));
    const slots = result.buckets.length;
    const slotW = plotW / slots;
    const barW = (slotW * 0.7) / Math.max(1, group.length);
    result.buckets.forEach((bucket, bi) => {
      const sx = x0 + bi * slotW + slotW * 0.15;
      group.forEach((panel, hi2) => {
        const g = panel.groups[bi];
        if (!g || g.n === 0 || !Number.isFinite(g.mean)) return;
        const bx = sx + hi2 * barW;
        const top = y(Math.max(0, g.mean));
        const bottom = y(Math.min(0, g.mean));
        out.push(
          `<rect x="${fmt(bx)}" y="${fmt(top)}" width="${fmt(barW - 2)}" height="${fmt(Math.max(0.5, bottom - top))}" fill="${COLORS[hi2 % COLORS.length]}"><title>${esc(
            `${benchmark} +${panel.horizon}d, ${bucket.label}: mean ${pct(g.mean)}, n ${g.n}, t ${num(g.t)}`,
          )}</title></rect>`,
        );
        if (g.n > 1 && Number.isFinite(g.std)) {
          const se = (1.96 * g.std) / Math.sqrt(g.n);
          const cx = fmt(bx + (barW - 2) / 2);
          out.push(
            `<line x1="${cx}" x2="${cx}" y1="${fmt(y(g.mean + se))}" y2="${fmt(y(g.mean - se))}" stroke="#222"/>`,
          );
        }
      });
      const n = group[0]?.groups[bi]?.n ?? 0;
      out.push(
        `<text x="${fmt(x0 + bi * slotW + slotW / 2)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${esc(bucket.label)}</text>`,
      );
      out.push(
        `<text x="${fmt(x0 + bi * slotW + slotW / 2)}" y="${HEIGHT - MARGIN.bottom + 30}" text-anchor="middle" fill="#777">n=${n}</text>`,
      );
    });
    out.push(`</g>`);
  });
  const legendY = HEIGHT - 14;
  result.horizons.forEach((h, i) => {
    const lx = MARGIN.left + i * 140;
    out.push(
      `<rect x="${lx}" y="${legendY - 10}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`,
    );
    out.push(`<text x="${lx + 18}" y="${legendY}">days 0..+${h}</text>`);
  });
  out.push(
    `<text x="${WIDTH - MARGIN.right}" y="${legendY}" text-anchor="end" fill="#777">signal_score bucket (x) · abnormal return (y)</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** A range covering [min, max] with 4–8 round ticks. */
export function niceRange(min: number, max: number): [number, number, number] {
  if (!(max > min)) return [min - 0.01, max + 0.01, 0.005];
  const raw = (max - min) / 6;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  return [Math.floor(min / step) * step, Math.ceil(max / step) * step, step];
}
