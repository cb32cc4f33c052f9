// Explorer: one contract as /api/v1/contracts/{id} bundles it — weekly prices around the award, the
// regime of its award date, the signal and its decay, the rationale (intelligence tier) and its sources.
import { api, h, render, state } from './app.js';
import {
  attribution,
  baseOptions,
  companyLink,
  contractLink,
  dollars,
  loadCharts,
  percent,
  REGIME_COLORS,
  regimeLabel,
  upgradeNotice,
} from './explorer-charts.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const child of children.flat())
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

export async function contractView(id) {
  const [bundle, lib] = await Promise.all([api('GET', `/contracts/${encodeURIComponent(id)}`), loadCharts()]);
  const { contract, signal, decay, regime } = bundle;
  const prices = h('div', { class: 'chart-box small', id: 'weekly-chart' });
  render(
    h('h1', {}, `${contract.recipient_name} · ${dollars(contract.contract_value)}`),
    h('p', { class: 'muted mono' }, contract.id),
    facts(contract, bundle.sources),
    h(
      'div',
      { class: 'explorer-grid' },
      h(
        'section',
        { class: 'card' },
        h('h2', {}, 'Weekly prices around the award'),
        bundle.weekly_prices.length
          ? [prices, attribution()]
          : h(
              'p',
              { class: 'muted', 'data-no-prices': '' },
              contract.ticker === null
                ? 'No prices: the owner on this date had no listed stock.'
                : `No candles are stored for ${contract.ticker} around this date.`,
            ),
      ),
      h(
        'section',
        { class: 'card', id: 'signal' },
        h('h2', {}, 'Signal and its decay'),
        signalPart(signal, decay),
      ),
    ),
    h(
      'div',
      { class: 'explorer-grid' },
      bundle.withheld?.regime ? regimeWithheld(bundle.withheld.regime) : regimePart(regime),
      rationalePart(bundle),
    ),
  );
  if (bundle.weekly_prices.length) drawWeekly(lib, prices, bundle);
  prices.dataset.ready = 'true';
}

function facts(c, sources) {
  const row = (label, ...value) => [h('dt', {}, label), h('dd', {}, ...value)];
  return h(
    'section',
    { class: 'card' },
    h(
      'dl',
      { class: 'facts' },
      row('Company', ...company(c)),
      row('Award date', c.award_date),
      row('Agency', c.awarding_agency, c.awarding_sub_agency ? ` · ${c.awarding_sub_agency}` : ''),
      row('Classification', c.nlp_classification.replaceAll('_', ' ')),
      row(
        'Matched by',
        h(
          'span',
          { id: 'match' },
          `${c.match_method.replaceAll('_', ' ')}, confidence ${percent(c.match_confidence)}`,
        ),
      ),
      row('Recipient', c.recipient_name),
      row(
        'Source',
        c.source,
        c.announced_at ? ` · announced ${c.announced_at.slice(0, 16).replace('T', ' ')} UTC` : '',
      ),
      c.linked_id ? row('Linked award', contractLink(c.linked_id), ` (${c.link_method ?? 'linked'})`) : null,
      c.description ? row('Description', c.description) : null,
      row(
        'Source links',
        sources.length
          ? sources.map((link) =>
              h('a', { href: link.url, rel: 'noopener', class: 'source-link' }, link.label),
            )
          : 'none: an announcement not linked to a published award',
      ),
    ),
  );
}

const NO_TICKER = {
  private: 'privately held then',
  foreign: 'a foreign parent, not listed in the data',
  not_yet_public: 'not yet public then',
  delisted: 'delisted by then',
  joint_venture: 'a joint venture',
  owner_unknown: 'owner unknown for this date',
};

/** The owner on the award date: its ticker then, or its name and why it had no ticker (a venture's parents). */
function company(c) {
  if (c.ticker !== null) return [companyLink(c.ticker)];
  const { no_ticker_reason: reason, venture_parents: parents } = c.resolution;
  const partners = parents.flatMap((p, i) => [
    i ? ', ' : ' (',
    p.ticker ? companyLink(p.ticker) : p.name,
    p.share === null ? '' : ` ${Math.round(p.share * 100)} %`,
  ]);
  const owner = c.owner_name ?? c.entity?.name ?? '';
  return [
    h('span', { id: 'owner' }, `${owner} — no ticker: ${NO_TICKER[reason] ?? reason}`),
    ...(partners.length ? [...partners, ')'] : []),
  ];
}

function drawWeekly(lib, box, bundle) {
  const { createChart, CandlestickSeries, HistogramSeries, createSeriesMarkers } = lib;
  const chart = createChart(box, baseOptions(300));
  const price = chart.addSeries(CandlestickSeries, {
    upColor: '#2e9e5b',
    downColor: '#d1453b',
    borderVisible: false,
    wickUpColor: '#2e9e5b',
    wickDownColor: '#d1453b',
  });
  const weeks = bundle.weekly_prices;
  price.setData(
    weeks.map((w) => ({ time: w.week_start, open: w.open, high: w.high, low: w.low, close: w.close })),
  );
  const volume = chart.addSeries(HistogramSeries, {
    priceScaleId: 'volume',
    priceFormat: { type: 'volume' },
    color: 'rgba(36,86,214,0.25)',
    lastValueVisible: false,
    priceLineVisible: false,
  });
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  volume.setData(weeks.map((w) => ({ time: w.week_start, value: w.volume })));
  // The award falls in the last week starting on or before its date.
  const awardWeek = weeks.filter((w) => w.week_start <= bundle.contract.award_date).at(-1) ?? weeks[0];
  createSeriesMarkers(price, [
    {
      time: awardWeek.week_start,
      position: 'aboveBar',
      shape: 'arrowDown',
      color: '#2456d6',
      text: `award ${bundle.contract.award_date}`,
    },
  ]);
  box.dataset.awardWeek = awardWeek.week_start;
  chart.timeScale().fitContent();
}

function signalPart(signal, decay) {
  if (!signal) return h('p', { class: 'muted' }, 'Not scored yet: no signal, so no decay.');
  const scores = h(
    'p',
    {},
    h('strong', { class: 'score', 'data-score': signal.signal_score }, `${signal.signal_score}`),
    ` / 100 (${signal.engine_name} ${signal.engine_version}) · importance ${signal.importance_score}, confidence ${signal.confidence_score}, risk ${signal.risk_score}`,
  );
  if (!decay) return scores;
  return [
    scores,
    h(
      'p',
      { class: 'muted' },
      `${decay.model} decay, half-life ${decay.half_life_days} days: ${decay.age_days} days old, strength ${decay.strength}, effective score ${decay.effective_score}.`,
    ),
    decayCurve(decay, signal.signal_score),
  ];
}

/** Strength 0.5^(days / half-life) from the award to past today (or 4 half-lives), today marked. */
function decayCurve(decay, score) {
  const [w, h0, left, bottom] = [420, 160, 34, 22];
  const span = Math.max(decay.half_life_days * 4, Math.ceil(decay.age_days * 1.1));
  const x = (day) => left + (day / span) * (w - left - 8);
  const y = (strength) => 6 + (1 - strength) * (h0 - bottom - 6);
  const strength = (day) => 0.5 ** (day / decay.half_life_days);
  const steps = 120;
  const points = Array.from({ length: steps + 1 }, (_, i) => (i / steps) * span).map(
    (d) => `${x(d).toFixed(1)},${y(strength(d)).toFixed(1)}`,
  );
  const age = Math.min(decay.age_days, span);
  return s(
    'svg',
    {
      class: 'decay',
      viewBox: `0 0 ${w} ${h0}`,
      role: 'img',
      'aria-label': `Signal strength over days since the award; now ${decay.strength}`,
    },
    s('line', { x1: left, y1: y(0), x2: w - 8, y2: y(0), class: 'axis' }),
    s('line', { x1: left, y1: y(1), x2: left, y2: y(0), class: 'axis' }),
    [1, 0.5, 0].map((v) => s('text', { x: left - 4, y: y(v) + 4, 'text-anchor': 'end' }, String(v))),
    s('text', { x: w - 8, y: h0 - 4, 'text-anchor': 'end' }, `${span} days`),
    s('text', { x: left, y: h0 - 4 }, 'award'),
    s('line', {
      x1: x(decay.half_life_days),
      y1: y(0.5),
      x2: x(decay.half_life_days),
      y2: y(0),
      class: 'half-life',
    }),
    s('text', { x: x(decay.half_life_days) + 3, y: y(0.5) - 4 }, `half-life ${decay.half_life_days} d`),
    s('polyline', { points: points.join(' '), class: 'curve' }),
    s(
      'circle',
      { cx: x(age), cy: y(decay.strength), r: 4, class: 'now' },
      s('title', {}, `today: ${Math.round(score * decay.strength)} effective`),
    ),
    s(
      'text',
      {
        x: x(age) > w - 90 ? x(age) - 6 : x(age) + 6,
        y: y(decay.strength) - 8,
        'text-anchor': x(age) > w - 90 ? 'end' : 'start',
      },
      `now ${decay.strength}`,
    ),
  );
}

function regimeWithheld(tier) {
  return h(
    'section',
    { class: 'card', id: 'regime' },
    h('h2', {}, 'Market regime'),
    upgradeNotice('The market regime', tier, state.me.user.plan),
  );
}

function regimePart(regime) {
  if (!regime)
    return h(
      'section',
      { class: 'card', id: 'regime' },
      h('h2', {}, 'Market regime'),
      h('p', { class: 'muted' }, 'No regime: too few benchmark candles before this date.'),
    );
  const names = Object.keys(REGIME_COLORS);
  const bar = (name, i) => {
    const share = regime.scores[name] ?? 0;
    return s(
      'g',
      {},
      s('text', { x: 0, y: i * 22 + 14 }, regimeLabel(name)),
      s('rect', {
        x: 110,
        y: i * 22 + 3,
        width: Math.max(1, share * 240),
        height: 14,
        fill: REGIME_COLORS[name],
      }),
      s('text', { x: 116 + share * 240, y: i * 22 + 14 }, percent(share)),
    );
  };
  return h(
    'section',
    { class: 'card', id: 'regime' },
    h('h2', {}, 'Market regime'),
    h(
      'p',
      {},
      'Dominant on ',
      regime.as_of,
      ': ',
      h('strong', { 'data-dominant': regime.dominant }, regimeLabel(regime.dominant)),
      ` (${regime.engine_version}, from ${regime.benchmark}).`,
    ),
    s(
      'svg',
      {
        class: 'regime-scores',
        viewBox: `0 0 400 ${names.length * 22}`,
        role: 'img',
        'aria-label': 'Regime scores',
      },
      names.map(bar),
    ),
  );
}

function rationalePart(bundle) {
  const { signal } = bundle;
  const body = !signal
    ? h('p', { class: 'muted' }, 'No signal, so no rationale.')
    : !signal.rationale
      ? upgradeNotice('The per-rule rationale', bundle.rationale_tier, state.me.user.plan)
      : h(
          'table',
          { id: 'rationale' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Rule', 'Weight', 'Value', 'Contribution', 'Detail'].map((t) => h('th', { scope: 'col' }, t)),
            ),
          ),
          h(
            'tbody',
            {},
            signal.rationale.map((r) =>
              h(
                'tr',
                {},
                h('td', {}, r.rule),
                h('td', { class: 'num' }, r.weight),
                h('td', { class: 'num' }, typeof r.value === 'number' ? r.value.toFixed(3) : String(r.value)),
                h(
                  'td',
                  { class: 'num' },
                  typeof r.contribution === 'number' ? r.contribution.toFixed(2) : String(r.contribution),
                ),
                h('td', { class: 'muted' }, r.detail ?? ''),
              ),
            ),
          ),
        );
  return h('section', { class: 'card', id: 'rationale-card' }, h('h2', {}, 'Why this score'), body);
}
