// Explorer · Evidence (#/evidence?engine=…&benchmark=…&window=…): the event study of an engine's
// current version — mean abnormal return by signal-score bucket with 95 % confidence intervals, n per
// bucket, one benchmark and window at a time, and a plain statement of what is not significant; then the
// top − bottom contrast beside its shifted-date placebos and the verdict in words ("no evidence" unless
// it beats 95 % of them with t ≥ 2.5).

import { ApiFailure, api, h, render, s, when } from './app.js';
import { placeboSection } from './explorer-placebo.js';
import { engineRefused } from './explorer-signals.js';
import { trackSection } from './explorer-track.js';

const Z = 1.96;
const pct = (x, digits = 2) =>
  x === null ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(digits)} %`;
const num = (x, digits = 2) => (x === null ? '—' : x.toFixed(digits));

function chart(panel) {
  const width = 640;
  const height = 260;
  const pad = { left: 64, right: 16, top: 16, bottom: 48 };
  const buckets = panel.buckets;
  const values = buckets.flatMap((b) => [b.ciLow, b.ciHigh, b.mean]).filter((x) => x !== null);
  const top = Math.max(0.001, ...values);
  const bottom = Math.min(-0.001, ...values);
  const y = (v) => pad.top + ((top - v) / (top - bottom)) * (height - pad.top - pad.bottom);
  const step = (width - pad.left - pad.right) / buckets.length;
  const ticks = [bottom, bottom / 2, 0, top / 2, top];
  return s(
    'svg',
    {
      class: 'chart evidence-chart',
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `Mean abnormal return by score bucket against ${panel.benchmark}, days 0 to ${panel.horizon}, with 95 % confidence intervals`,
    },
    ticks.map((t) =>
      s(
        'g',
        {},
        s('line', {
          class: t === 0 ? 'zero' : 'grid',
          x1: pad.left,
          x2: width - pad.right,
          y1: y(t),
          y2: y(t),
        }),
        s('text', { x: pad.left - 6, y: y(t) + 4, 'text-anchor': 'end' }, pct(t, 1)),
      ),
    ),
    buckets.map((b, i) => {
      const cx = pad.left + step * i + step / 2;
      const barW = step * 0.5;
      if (b.mean === null)
        return s('text', { x: cx, y: y(0) - 6, 'text-anchor': 'middle', class: 'muted' }, 'no data');
      const parts = [
        s(
          'rect',
          {
            class: b.mean >= 0 ? 'up' : 'down',
            x: cx - barW / 2,
            y: Math.min(y(0), y(b.mean)),
            width: barW,
            height: Math.max(1, Math.abs(y(b.mean) - y(0))),
            'data-bucket': b.label,
          },
          s('title', {}, `${b.label}: ${pct(b.mean)} (95 % CI ${pct(b.ciLow)} … ${pct(b.ciHigh)}), n ${b.n}`),
        ),
      ];
      if (b.ciLow !== null && b.ciHigh !== null) {
        parts.push(
          s('line', { class: 'ci', x1: cx, x2: cx, y1: y(b.ciLow), y2: y(b.ciHigh), 'data-ci': b.label }),
          s('line', { class: 'ci', x1: cx - 8, x2: cx + 8, y1: y(b.ciLow), y2: y(b.ciLow) }),
          s('line', { class: 'ci', x1: cx - 8, x2: cx + 8, y1: y(b.ciHigh), y2: y(b.ciHigh) }),
        );
      }
      return s('g', {}, ...parts);
    }),
    buckets.map((b, i) => {
      const cx = pad.left + step * i + step / 2;
      return s(
        'g',
        {},
        s('text', { x: cx, y: height - pad.bottom + 18, 'text-anchor': 'middle' }, `score ${b.label}`),
        s(
          'text',
          { x: cx, y: height - pad.bottom + 34, 'text-anchor': 'middle', class: 'muted' },
          `n ${b.n}`,
        ),
      );
    }),
  );
}

/** What the numbers say and do not, in words. */
function statements(panel) {
  const lines = [];
  const tmb = panel.topMinusBottom;
  const first = panel.buckets[0]?.label;
  const last = panel.buckets.at(-1)?.label;
  if (!tmb) {
    lines.push(
      `Top (${last}) − bottom (${first}) cannot be tested: a bucket has fewer than two priced contracts.`,
    );
  } else {
    const verdict = tmb.significant
      ? `significant at 5 % (|t| ≥ ${Z})`
      : `not significant (|t| < ${Z}): the data cannot tell the top bucket from the bottom one`;
    lines.push(
      h(
        'span',
        { 'data-verdict': tmb.significant ? 'significant' : 'not-significant' },
        `Top (${last}) − bottom (${first}): ${pct(tmb.diff)}, Welch's t ${num(tmb.t)} over market events — ${verdict}.`,
      ),
    );
  }
  const zero = panel.buckets.filter((b) => b.tEvents !== null && Math.abs(b.tEvents) < Z).map((b) => b.label);
  if (zero.length)
    lines.push(
      `Not different from zero at 5 % (|t over market events| < ${Z}): bucket${zero.length > 1 ? 's' : ''} ${zero.join(', ')}.`,
    );
  return h(
    'ul',
    { class: 'statements' },
    lines.map((line) => h('li', {}, line)),
  );
}

function table(panel) {
  const line = (b) =>
    h(
      'tr',
      { 'data-bucket-row': b.label },
      h('th', { scope: 'row' }, b.label),
      h('td', { class: 'num', 'data-n': b.n }, b.n),
      h('td', { class: 'num' }, b.events),
      h('td', { class: 'num' }, pct(b.mean)),
      h('td', { class: 'num' }, b.ciLow === null ? '—' : `${pct(b.ciLow)} … ${pct(b.ciHigh)}`),
      h('td', { class: 'num' }, num(b.t)),
      h('td', { class: 'num' }, num(b.tEvents)),
    );
  return h(
    'table',
    { class: 'evidence', 'aria-label': 'Abnormal return by score bucket' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Score', 'n (contracts)', 'market events', 'mean AR', '95 % CI', 't', 't (events)'].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
    h('tbody', {}, panel.buckets.map(line), line({ ...panel.all, label: 'all' })),
  );
}

function picker(label, options, chosen, go) {
  return h(
    'div',
    { class: 'tabs', role: 'group', 'aria-label': label },
    h('span', { class: 'muted' }, `${label}: `),
    options.map(([value, text]) =>
      h(
        'button',
        {
          type: 'button',
          class: String(value) === String(chosen) ? '' : 'secondary',
          'aria-pressed': String(value) === String(chosen),
          onclick: () => go(value),
        },
        text,
      ),
    ),
  );
}

export async function evidenceView(params) {
  const engineName = params.get('engine') ?? '';
  let data;
  // The track record is the intelligence tier's: a 403 shows a notice in its place.
  const tracking = api('GET', '/predictions').catch((error) => {
    if (error instanceof ApiFailure && error.status === 403) return null;
    throw error;
  });
  tracking.catch(() => undefined);
  try {
    data = await api('GET', `/evidence${engineName ? `?engine=${encodeURIComponent(engineName)}` : ''}`);
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 403) throw error;
    const { notice } = await engineRefused(engineName);
    render(
      h('h1', {}, 'Evidence'),
      h('p', {}, h('a', { href: '#/evidence' }, 'Back to the default engine')),
      notice,
    );
    return;
  }
  const { study } = data;
  const benchmark = study.benchmarks.includes(params.get('benchmark'))
    ? params.get('benchmark')
    : study.benchmarks[0];
  const horizon = Number(params.get('window')) || study.horizons.at(-1);
  const panel =
    study.panels.find((p) => p.benchmark === benchmark && p.horizon === horizon) ?? study.panels[0];
  const go = (change) => {
    const next = { engine: data.engine, benchmark: panel.benchmark, window: panel.horizon, ...change };
    location.hash = `#/evidence?${new URLSearchParams(next)}`;
  };
  const excluded = Object.entries(panel.excluded)
    .map(([reason, n]) => `${reason.replaceAll('_', ' ')} ${n}`)
    .join(', ');
  render(
    h('h1', {}, 'Evidence'),
    h(
      'p',
      { class: 'muted' },
      'Do higher scores come before higher abnormal returns? For each contract the engine scored: ',
      'abnormal return (AR) = the stock’s return from the close before day 0 to the close of day N, minus ',
      'the benchmark’s over the same dates (day 0: the first trading day on or after the award date).',
    ),
    h(
      'div',
      { class: 'evidence-controls' },
      picker(
        'Engine',
        data.engines.map((e) => [e.name, e.reachable ? e.name : `${e.name} (${e.tier} tier)`]),
        data.engine,
        (engine) => go({ engine }),
      ),
      picker(
        'Benchmark',
        study.benchmarks.map((b) => [b, b]),
        panel.benchmark,
        (b) => go({ benchmark: b }),
      ),
      picker(
        'Window',
        study.horizons.map((n) => [n, `${n} day${n > 1 ? 's' : ''}`]),
        panel.horizon,
        (n) => go({ window: n }),
      ),
    ),
    h(
      'section',
      { class: 'card', 'data-panel': `${panel.benchmark}:${panel.horizon}` },
      h('h2', {}, `${data.engine} ${data.version} · vs ${panel.benchmark} · days 0…${panel.horizon}`),
      chart(panel),
      h(
        'p',
        { class: 'legend muted' },
        `Bars: mean AR over the bucket's contracts. Error bars: 95 % confidence interval, mean ± ${Z} × SE, `,
        'SE = std / √n over contracts (it ignores that same-day awards of one company share one price move; ',
        't (events) counts each such market event once and is the test used below).',
      ),
      statements(panel),
      table(panel),
      h(
        'p',
        { class: 'muted' },
        `${panel.priced} contracts priced.${excluded ? ` Excluded (no price data for the window): ${excluded}.` : ''}`,
      ),
    ),
    placeboSection(study.placebo ?? null),
    trackSection(await tracking),
    h(
      'p',
      { class: 'muted', 'data-computed': data.computed_at },
      `Study computed ${when(data.computed_at)} over ${data.contracts} scored contracts with a ticker.`,
      data.contracts_now !== data.contracts
        ? ` The version has ${data.contracts_now} now; \`market-intel evaluate --engine ${data.engine}\` redoes the study.`
        : '',
    ),
  );
}
