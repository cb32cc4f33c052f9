// Explorer · Evidence · the placebo card: the engine's top − bottom contrast on the real dates beside the
// same contrast with every date moved ±6 … ±60 trading days, within companies too, and the verdict in
// words ("No evidence" unless the real dates beat 95 % of the placebos with t ≥ 2.5).

import { h, s } from './app.js';

const pct = (x, digits = 2) =>
  x === null ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(digits)} %`;
const num = (x, digits = 2) => (x === null ? '—' : x.toFixed(digits));

/** The placebo strip: each shifted-date contrast as a tick, the real dates' as a taller mark. */
function placeboChart(placebo) {
  const width = 640;
  const height = 90;
  const pad = { left: 16, right: 16 };
  const values = placebo.placebos.map((p) => p.diff).filter((x) => x !== null);
  if (placebo.real.diff !== null) values.push(placebo.real.diff);
  const lo = Math.min(-0.001, ...values);
  const hi = Math.max(0.001, ...values);
  const x = (v) => pad.left + ((v - lo) / (hi - lo)) * (width - pad.left - pad.right);
  return s(
    'svg',
    {
      class: 'chart placebo-chart',
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `Top − bottom contrast on the real dates beside ${placebo.placebos.length} shifted-date placebos`,
    },
    s('line', { class: 'zero', x1: x(0), x2: x(0), y1: 10, y2: 60 }),
    placebo.placebos
      .filter((p) => p.diff !== null)
      .map((p) =>
        s(
          'line',
          { class: 'placebo', x1: x(p.diff), x2: x(p.diff), y1: 25, y2: 50, 'data-shift': p.shift },
          s('title', {}, `shift ${p.shift > 0 ? '+' : ''}${p.shift} days: ${pct(p.diff)} (t ${num(p.t)})`),
        ),
      ),
    placebo.real.diff === null
      ? []
      : s(
          'line',
          {
            class: 'real',
            x1: x(placebo.real.diff),
            x2: x(placebo.real.diff),
            y1: 10,
            y2: 60,
            'data-real': '',
          },
          s('title', {}, `real dates: ${pct(placebo.real.diff)} (t ${num(placebo.real.t)})`),
        ),
    s('text', { x: pad.left, y: 80 }, pct(lo, 1)),
    s('text', { x: width - pad.right, y: 80, 'text-anchor': 'end' }, pct(hi, 1)),
  );
}

const share = (x) => (x === null ? '—' : `${Math.round(x * 100)} %`);

/** The evidence bar in words: the real contrast beside its placebos, within companies too. */
export function placeboSection(placebo) {
  if (!placebo)
    return h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Placebos'),
      h('p', {}, 'No placebo test: too few contracts.'),
    );
  const row = (label, c, above) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, label),
      h('td', { class: 'num' }, pct(c.diff)),
      h('td', { class: 'num' }, num(c.t)),
      h('td', { class: 'num' }, c.n),
      h('td', { class: 'num' }, c.dates),
      h('td', { class: 'num' }, share(above)),
    );
  return h(
    'section',
    { class: 'card', 'data-placebo': '' },
    h('h2', {}, `Placebos · top − bottom bucket · vs ${placebo.benchmark} · days 0…${placebo.horizon}`),
    h(
      'p',
      {
        class: placebo.evidence ? 'verdict evidence' : 'verdict no-evidence',
        'data-evidence-verdict': placebo.evidence ? 'evidence' : 'no-evidence',
      },
      h('strong', {}, placebo.verdict),
    ),
    placeboChart(placebo),
    h(
      'p',
      { class: 'legend muted' },
      `Ticks: the same contrast with every award date moved by ±6 … ±60 trading days (${placebo.placebos.length} placebos), `,
      `where no news can be; tall mark: the real dates. ${placebo.placebosAbsTOver2} of the placebos reach |t| ≥ 2. `,
      'Evidence needs the real dates above 95 % of the placebos and a t (clustered by date) of at least 2.5.',
    ),
    h(
      'table',
      { class: 'evidence', 'aria-label': 'Real contrast and placebos' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['', 'top − bottom', 't (by date)', 'contracts', 'dates', 'above placebos'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        row('real dates', placebo.real, placebo.percentile),
        row('within companies', placebo.demeaned, placebo.demeanedPercentile),
      ),
    ),
  );
}
