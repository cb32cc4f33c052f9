/** Markdown rendering of an announcement study (no dependencies, deterministic output). */
import {
  ANNOUNCEMENT_EXCLUSION_TEXT,
  type AnnouncementStudyResult,
  benchmarkLabel,
  type GroupSummary,
  resultKey,
} from './announcement-study.ts';
import { exclusionText, num, pct, type ReportMeta } from './event-report.ts';

export function renderAnnouncementMarkdown(result: AnnouncementStudyResult, meta: ReportMeta): string {
  const lines: string[] = [];
  const push = (line = ''): void => {
    lines.push(line);
  };
  const panels = new Map(result.panels.map((p) => [resultKey(p.benchmark, p.window), p]));
  const dates = result.rows.map((r) => r.event.date).sort();
  const { length, gap, minDays } = result.estimation;
  push(`# Announcement study: ${meta.engine} ${meta.version}`);
  push();
  push(
    `${result.events} announced contracts (announcement dates ${dates[0] ?? '–'} … ${dates[dates.length - 1] ?? '–'}), ` +
      `data: ${meta.source}. Benchmarks: ${result.benchmarks.map(benchmarkLabel).join(', ')}. ` +
      `Windows: ${result.windows.map((w) => w.label).join(', ')}.`,
  );
  push();
  push(
    '**Method.** DoD posts its daily contract announcements at about 17:00 New York time, after the close,',
  );
  push("so day 0 = the announcement date if it is a trading day (the benchmark's calendar), else the last");
  push('trading day before it: its close is the last price before the news. Window a→b = the return from');
  push(
    'close(day a) to close(day b); −1→0 ends before the news, so a move there is leakage or wrong timing.',
  );
  push('Market-adjusted AR = R_ticker − R_benchmark over the same dates; market-model AR =');
  push(
    `R_ticker − (h·α + β·R_benchmark), h = trading days in the window, α and β by OLS on daily returns over`,
  );
  push(
    `days −${gap + length - 1} … −${gap} (at least ${minDays} valid days). A window is priced only when the ticker`,
  );
  push('and the benchmark have a candle on each of its trading days; otherwise the event is excluded and');
  push('counted below, never filled.');
  push();
  push('**Inference.** Clustered by day 0 (G dates, n events, e = AR − mean): V(mean) =');
  push(
    'G/(G−1) · Σ_g (Σ_{i∈g} e_i)² / n², t = mean / √V. Top − bottom: the slope of AR on a top indicator over',
  );
  push(
    'both groups with the same clustered variance, V = G/(G−1) · Σ_g (S_top,g / n_top − S_bottom,g / n_bottom)²,',
  );
  push("S_·,g = the sum of e over that group's events of date g (e against its own group's mean).");
  push();
  push(
    '**Caveat.** Windows of nearby dates overlap (0→+20 windows a week apart share 15 days); clustering by',
  );
  push('date does not absorb that, so the t of the longer windows is still somewhat overstated.');
  push();
  push('## Priced and excluded');
  push();
  push('| benchmark | window | priced | excluded |');
  push('|---|---|---|---|');
  for (const window of result.windows) {
    for (const benchmark of result.benchmarks) {
      const panel = panels.get(resultKey(benchmark, window));
      if (!panel) continue;
      push(
        `| ${benchmarkLabel(benchmark)} | ${window.label} | ${panel.priced} | ${exclusionText(panel.excluded, ANNOUNCEMENT_EXCLUSION_TEXT) || 'none'} |`,
      );
    }
  }
  push();
  result.groupings.forEach((grouping, gi) => {
    push(`## By ${grouping.name}`);
    push();
    push(`${grouping.note}.`);
    push();
    for (const benchmark of result.benchmarks) {
      push(`### ${benchmarkLabel(benchmark)}`);
      push();
      push('| window | group | events | dates | mean AR | t (dates) |');
      push('|---|---|---|---|---|---|');
      const ungrouped: string[] = [];
      for (const window of result.windows) {
        const panel = panels.get(resultKey(benchmark, window));
        const summary = panel?.groupings[gi];
        if (!panel || !summary) continue;
        for (const g of [...summary.groups, panel.all]) push(groupRow(window.label, g));
        const c = summary.contrast;
        if (c) {
          push(
            `| ${window.label} | ${c.top} − ${c.bottom} | ${c.n} | ${c.dates} | ${pct(c.diff)} | ${num(c.t)} |`,
          );
        }
        if (summary.ungrouped > 0) ungrouped.push(`${window.label} ${summary.ungrouped}`);
      }
      push();
      if (ungrouped.length) {
        push(`Priced events without a ${grouping.name} (in "all" only): ${ungrouped.join(', ')}.`);
        push();
      }
    }
  });
  return `${lines.join('\n')}\n`;
}

function groupRow(window: string, g: GroupSummary): string {
  return `| ${window} | ${g.label} | ${g.n} | ${g.dates} | ${pct(g.mean)} | ${num(g.t)} |`;
}
