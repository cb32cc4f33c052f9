// Explorer · Evidence · the prediction engine's public track record: each stored prediction's interval
// (made at the event's available_at, never recomputed) against the abnormal return realized since, and
// the rolling share of realized values inside their intervals against the stated level.

import { h, s } from './app.js';

const pct = (x, digits = 1) =>
  x === null || x === undefined ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(digits)} %`;
const share = (x) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);

/** Predictions whose horizon has passed, oldest first. */
const judged = (track) => track.data.filter((p) => p.realized_abnormal_return !== null);

const inside = (p) =>
  p.realized_abnormal_return >= p.interval.low && p.realized_abnormal_return <= p.interval.high;

function intervalChart(points) {
  const width = 720;
  const height = 240;
  const pad = { left: 56, right: 8, top: 8, bottom: 24 };
  const values = points.flatMap((p) => [p.interval.low, p.interval.high, p.realized_abnormal_return]);
  const top = Math.max(0.01, ...values);
  const bottom = Math.min(-0.01, ...values);
  const y = (v) => pad.top + ((top - v) / (top - bottom)) * (height - pad.top - pad.bottom);
  const step = (width - pad.left - pad.right) / Math.max(1, points.length);
  const x = (i) => pad.left + step * i + step / 2;
  return s(
    'svg',
    {
      class: 'chart track-chart',
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `${points.length} predicted intervals and the abnormal returns realized, oldest first`,
    },
    [top, 0, bottom].map((t) =>
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
        s('text', { x: pad.left - 6, y: y(t) + 4, 'text-anchor': 'end' }, pct(t)),
      ),
    ),
    points.map((p, i) =>
      s(
        'g',
        { 'data-prediction': p.contract_id },
        s('line', { class: 'interval', x1: x(i), x2: x(i), y1: y(p.interval.high), y2: y(p.interval.low) }),
        s(
          'circle',
          { class: inside(p) ? 'inside' : 'outside', cx: x(i), cy: y(p.realized_abnormal_return), r: 2 },
          s(
            'title',
            {},
            `${p.ticker} ${p.day0}: ${pct(p.interval.low)} … ${pct(p.interval.high)}, realized ${pct(p.realized_abnormal_return)}`,
          ),
        ),
      ),
    ),
  );
}

/** The share inside over the last `window` predictions, at each prediction from the window-th on. */
export function rollingCoverage(points, window) {
  const out = [];
  let count = 0;
  points.forEach((p, i) => {
    count += inside(p) ? 1 : 0;
    if (i >= window) count -= inside(points[i - window]) ? 1 : 0;
    if (i >= window - 1) out.push(count / window);
  });
  return out;
}

function coverageChart(points, level, window) {
  const width = 720;
  const height = 120;
  const pad = { left: 56, right: 8, top: 8, bottom: 16 };
  const rolling = rollingCoverage(points, window);
  const y = (v) => pad.top + (1 - v) * (height - pad.top - pad.bottom);
  const step = (width - pad.left - pad.right) / Math.max(1, rolling.length - 1);
  const path = rolling
    .map((v, i) => `${i ? 'L' : 'M'}${(pad.left + step * i).toFixed(1)},${y(v).toFixed(1)}`)
    .join('');
  return s(
    'svg',
    {
      class: 'chart track-coverage',
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `Share of the last ${window} realized values inside their intervals, against the stated level`,
    },
    [1, level, 0.5].map((t) =>
      s(
        'g',
        {},
        s('line', {
          class: t === level ? 'level' : 'grid',
          x1: pad.left,
          x2: width - pad.right,
          y1: y(t),
          y2: y(t),
        }),
        s('text', { x: pad.left - 6, y: y(t) + 4, 'text-anchor': 'end' }, share(t)),
      ),
    ),
    rolling.length > 1 ? s('path', { class: 'rolling', d: path, 'data-rolling': rolling.length }) : [],
  );
}

/** The Evidence page's track-record card; `track` null when the plan does not reach predictions. */
export function trackSection(track) {
  if (!track)
    return h(
      'section',
      { class: 'card', 'data-track': 'upgrade' },
      h('h2', {}, 'Prediction track record'),
      h('p', { class: 'muted' }, 'Predictions and their track record are on the intelligence tier.'),
    );
  const points = judged(track);
  const m = track.model;
  const oos = m.out_of_sample;
  const window = Math.min(50, points.length);
  return h(
    'section',
    { class: 'card', 'data-track': points.length },
    h('h2', {}, `Prediction track record · ${m.name} ${m.version}`),
    h(
      'p',
      { class: 'muted' },
      `Each announcement event's ${m.horizon_days}-day abnormal return against ${m.benchmark}, predicted when the event `,
      `became public and never recomputed: the ${share(m.level)} interval (line) and what happened (dot, red when outside). `,
      `Fitted ${m.fit_period.from} → ${m.fit_period.to}.`,
    ),
    points.length ? intervalChart(points) : h('p', {}, 'No prediction has reached its horizon yet.'),
    window > 1 ? coverageChart(points, m.level, window) : [],
    h(
      'p',
      { 'data-coverage': oos.coverage ?? '' },
      `Out of sample (made since ${oos.from}, horizon passed): ${oos.n} predictions, ${share(oos.coverage)} inside `,
      `their intervals (stated ${share(m.level)}); mean width ${share(oos.mean_width)} against ${share(oos.unconditional.width)} `,
      `for the fit period's one-size interval (which covered ${share(oos.unconditional.coverage)}). `,
      `The centre is 0: no rule here predicts the direction. Chart: the newest ${track.data.length} predictions; `,
      `the lower line is the share inside over the last ${window}.`,
    ),
  );
}
