/** The placebo test (placebo.ts) as a REPORT.md section. */
import { EVIDENCE_BAR, type PlaceboSummary } from './placebo.ts';

const pct = (x: number | null): string =>
  x === null ? 'n/a' : `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(2)} %`;
const t = (x: number | null): string => (x === null ? 'n/a' : x.toFixed(2).replace('-', '−'));
const size = (x: number | null): string => (x === null ? 'n/a' : `${(100 * x).toFixed(2)} %`);
const share = (x: number | null): string => (x === null ? 'n/a' : `${Math.round(100 * x)} %`);

/** Markdown lines: the verdict in words, the real and within-company contrasts, every placebo. */
export function renderPlaceboMarkdown(summary: PlaceboSummary, what: string): string[] {
  const { real, demeaned } = summary;
  return [
    `## Placebos: ${what}`,
    '',
    `**${summary.verdict}**`,
    '',
    `The same contrast with every event's day 0 moved by ±6 … ±60 trading days (${summary.placebos.length} placebos); ` +
      `evidence needs the real dates above ${share(EVIDENCE_BAR.percentile)} of them and a date-clustered t ≥ ${EVIDENCE_BAR.t}.`,
    '',
    '| | top − bottom | t (clustered by date) | events | dates | above placebos |',
    '|---|---|---|---|---|---|',
    `| real dates | ${pct(real.diff)} | ${t(real.t)} | ${real.n} | ${real.dates} | ${share(summary.percentile)} |`,
    `| within companies (demeaned by ticker) | ${pct(demeaned.diff)} | ${t(demeaned.t)} | ${demeaned.n} | ${demeaned.dates} | ${share(summary.demeanedPercentile)} |`,
    '',
    `Placebo contrasts: mean ${pct(summary.placeboMean)}, standard deviation ${size(summary.placeboSd)}; ` +
      `${summary.placebosAbsTOver2} of ${summary.placebos.length} reach |t| ≥ 2.`,
    '',
    `| shift (trading days) | ${summary.placebos.map((p) => (p.shift > 0 ? `+${p.shift}` : String(p.shift))).join(' | ')} |`,
    `|---|${summary.placebos.map(() => '---').join('|')}|`,
    `| top − bottom | ${summary.placebos.map((p) => pct(p.diff)).join(' | ')} |`,
    `| t | ${summary.placebos.map((p) => t(p.t)).join(' | ')} |`,
    '',
  ];
}
