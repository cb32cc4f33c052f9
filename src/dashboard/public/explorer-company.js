// Explorer: a company's daily candles and volume with its awards marked (one marker a day: size = the
// day's total value, colour = its best signal score), a benchmark rebased beside it, the market regime
// band (intelligence tier), its totals by agency and classification, and its recent contracts.
import { api, h, render, state } from './app.js';
import {
  attribution,
  baseOptions,
  contractLink,
  count,
  dollars,
  loadCharts,
  percent,
  REGIME_COLORS,
  regimeLabel,
  upgradeNotice,
} from './explorer-charts.js';
import { HISTORY_COLOR, historyEvents, historySection } from './explorer-history.js';
import { dayMarkers, mergeDays, SCORE_COLORS, toDate, toTime, UNSCORED } from './explorer-markers.js';

const BENCHMARKS = ['ITA', 'SPY'];
const RANGES = [
  ['1Y', 1],
  ['5Y', 5],
  ['10Y', 10],
  ['All', null],
];
/** The range the chart opens on. */
const FIRST_RANGE = ['5Y', 5];
/**
 * The first frame asks for and draws only the latest bars, FIRST_RANGE and some (five years of
 * weekdays are 1,305 bars; a trading calendar has fewer): all 7,000 of the busiest ticker's, with their
 * volume, regime band and benchmark, made its page miss 1 s. The earlier bars are asked for once, when
 * a zoom or pan reaches the first bar drawn or a longer range is chosen.
 */
const FIRST_BARS = 1400;
/** The chart's panes below the candles: volume, then the regime band. */
const VOLUME_PANE = 1;
const REGIME_PANE = 2;
const DAY = 86_400;

/** The page's first reads (app.js sends them at boot, beside the session's own). */
export function companyReads(rawTicker = 'LMT') {
  const ticker = encodeURIComponent(rawTicker.toUpperCase());
  // The company's latest bars and as many of the benchmark's (a listed company's and a benchmark's
  // trading days are the same).
  return [
    `/companies/${ticker}`,
    `/candles/${ticker}?limit=${FIRST_BARS}`,
    `/candles/${BENCHMARKS[0]}?limit=${FIRST_BARS}`,
  ];
}

export async function companyView(rawTicker = 'LMT') {
  const ticker = rawTicker.toUpperCase();
  const [companyRead, candlesRead, benchmarkRead] = companyReads(ticker);
  // Everything the first frame needs is asked for at once.
  const [company, candles, benchmark, chartsLib] = await Promise.all([
    api('GET', companyRead),
    api('GET', candlesRead).catch((error) => {
      if (error.status === 404) return [];
      throw error;
    }),
    api('GET', benchmarkRead),
    loadCharts(),
  ]);
  const chartBox = h('div', { class: 'chart-box', id: 'company-chart' });
  const view = {
    ticker,
    company,
    candles,
    complete: candles.length < FIRST_BARS,
    box: chartBox,
    lib: chartsLib,
    benchmark: BENCHMARKS[0],
    relative: true,
    filter: '',
  };
  view.benchData = { [BENCHMARKS[0]]: benchmark };
  const legend = h('p', { class: 'chart-legend mono', id: 'chart-legend', 'aria-live': 'polite' }, '\u00a0');
  const recent = h('tbody', {});
  render(
    header(company),
    candles.length ? controls(view) : null,
    h(
      'section',
      { class: 'card' },
      candles.length
        ? [legend, chartBox, regimeKey(company), markerKey(), attribution()]
        : h(
            'p',
            { class: 'empty-chart', 'data-no-candles': ticker },
            `No daily candles are stored for ${ticker}, so there is no price chart; its contracts are below.`,
          ),
    ),
    historySection(company.history),
    totals(company.totals),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, `Recent contracts (${company.recent_contracts.length} most recent)`),
      h(
        'table',
        { id: 'recent-contracts' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Award date', 'Contract', 'Agency', 'Classification', 'Value', 'Match'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        recent,
      ),
    ),
  );
  view.recent = recent;
  fillRecent(view);
  if (candles.length) {
    await drawChart(view, chartBox, legend);
    // Drawn: the chart's first frame has painted.
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    // What the browser tests read of the drawn chart: the price at the bottom edge of the candles' pane
    // (in either scale mode, negative exactly when the axis there would show a negative value).
    chartBox.axisFloor = () => view.price.coordinateToPrice(view.chart.panes()[0].getHeight());
    chartBox.dataset.ready = 'true';
    // On the page's clock (since navigation), as the resource timings the bench compares it with.
    chartBox.dataset.drawnAt = String(Math.round(performance.now()));
  }
}

function header(data) {
  const { company } = data;
  const jump = h('input', {
    type: 'text',
    id: 'ticker-jump',
    name: 'ticker',
    value: company.ticker,
    maxlength: 10,
    size: 6,
    pattern: '[A-Za-z0-9.\\-]{1,10}',
    required: true,
  });
  return [
    h('h1', {}, `${company.ticker} · ${company.name}`),
    h(
      'form',
      {
        class: 'inline ticker-jump',
        onsubmit: (event) => {
          event.preventDefault();
          location.hash = `#/companies/${encodeURIComponent(jump.value.trim().toUpperCase())}`;
        },
      },
      h('label', { for: 'ticker-jump' }, 'Company ticker', jump),
      h('button', { type: 'submit', class: 'secondary' }, 'Show'),
    ),
    h(
      'p',
      { class: 'muted' },
      [company.exchange, company.sector, company.industry].filter(Boolean).join(' · '),
      ` — ${count(company.contract_count)} contracts, ${dollars(company.total_contract_value)} in total; markers score with the ${data.engine} engine.`,
    ),
  ];
}

function controls(view) {
  const group = (label, items) => h('div', { class: 'tabs', role: 'group', 'aria-label': label }, items);
  const press = (button, siblings) => {
    for (const b of siblings) b.setAttribute('aria-pressed', String(b === button));
  };
  const ranges = RANGES.map(([label, years]) => {
    const button = h(
      'button',
      { type: 'button', class: 'secondary', 'aria-pressed': String(label === FIRST_RANGE[0]) },
      label,
    );
    button.addEventListener('click', () => {
      press(button, ranges);
      void showYears(view, years);
    });
    return button;
  });
  const bench = h(
    'select',
    { id: 'benchmark', 'aria-label': 'Benchmark' },
    BENCHMARKS.map((t) => h('option', { value: t }, `vs ${t}`)),
    h('option', { value: '' }, 'no benchmark'),
  );
  bench.addEventListener('change', () => setBenchmark(view, bench.value));
  const scale = h(
    'select',
    { id: 'scale', 'aria-label': 'Scale' },
    h('option', { value: 'relative' }, 'Rebased: 100 = first visible bar'),
    h('option', { value: 'price' }, 'Price'),
  );
  scale.addEventListener('change', () => setScale(view, scale.value === 'relative'));
  const classes = [...new Set(view.company.award_days.map((d) => d.nlp_classification))].sort();
  const filter = h(
    'select',
    { id: 'award-filter', 'aria-label': 'Awards shown' },
    h('option', { value: '' }, 'all awards'),
    classes.map((c) => h('option', { value: c }, c.replaceAll('_', ' '))),
  );
  filter.addEventListener('change', () => {
    view.filter = filter.value;
    setMarkers(view);
    fillRecent(view);
  });
  return h('div', { class: 'chart-controls' }, group('Range', ranges), bench, scale, filter);
}

async function drawChart(view, box, legend) {
  const { createChart, CandlestickSeries, HistogramSeries, LineSeries, PriceScaleMode, createSeriesMarkers } =
    view.lib;
  const chart = createChart(box, { ...baseOptions(460), crosshair: { mode: 0 } });
  view.chart = chart;
  const price = chart.addSeries(CandlestickSeries, {
    upColor: '#2e9e5b',
    downColor: '#d1453b',
    borderVisible: false,
    wickUpColor: '#2e9e5b',
    wickDownColor: '#d1453b',
    title: view.ticker,
  });
  // Volume in a pane of its own: as an overlay under the candles it needed the price scale to leave a
  // bottom margin, which the axis labelled with prices below zero.
  const volume = chart.addSeries(
    HistogramSeries,
    { priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false },
    VOLUME_PANE,
  );
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0 } });
  chart.panes()[VOLUME_PANE]?.setHeight(70);
  view.volume = volume;
  // No bottom margin (the markers sit above the bars): the axis ends at the lowest low, never below zero.
  chart.priceScale('right').applyOptions({ scaleMargins: { top: 0.08, bottom: 0 } });
  view.price = price;
  view.benchLine = chart.addSeries(LineSeries, {
    color: '#6b4fbb',
    lineWidth: 2,
    priceLineVisible: false,
    lastValueVisible: true,
  });
  view.PriceScaleMode = PriceScaleMode;
  view.markers = createSeriesMarkers(price, []);
  // The legend under the cursor: each day's awards, whatever the filter.
  view.byDate = new Map(mergeDays(view.company.award_days).map((day) => [day.award_date, day]));
  if (view.company.regimes) drawRegimes(view, chart, HistogramSeries);
  setBars(view);
  setMarkers(view);
  setScale(view, view.relative);
  await setBenchmark(view, view.benchmark);
  await showYears(view, FIRST_RANGE[1]);
  chart.timeScale().subscribeVisibleLogicalRangeChange((range) => {
    // Logical 0 is the first bar drawn: the view has reached it.
    if (range && range.from < 0) void earlierBars(view);
  });
  chart.subscribeCrosshairMove((param) => showLegend(view, legend, param));
  chart.subscribeClick((param) => {
    if (typeof param.hoveredObjectId === 'string')
      location.hash = `#/contracts/${encodeURIComponent(param.hoveredObjectId)}`;
  });
}

/** The candles, their volume and the regime band under them, of every bar loaded so far. */
function setBars(view) {
  const times = view.candles.map((c) => toTime(c.date));
  view.price.setData(
    view.candles.map((c, i) => ({ time: times[i], open: c.open, high: c.high, low: c.low, close: c.close })),
  );
  view.volume.setData(
    view.candles.map((c, i) => ({
      time: times[i],
      value: c.volume,
      color: c.close >= c.open ? 'rgba(46,158,91,0.35)' : 'rgba(209,69,59,0.35)',
    })),
  );
  view.band?.setData(regimeBars(view.company.regimes, view.candles, times));
  view.box.dataset.bars = String(view.candles.length);
  view.box.dataset.first = view.candles[0].date;
}

/**
 * The bars before the first drawn, asked for once; after a failed read (or a page left meanwhile) the
 * next zoom, pan or range asks again. The chart keeps its view: the library anchors it to the last bar.
 */
function earlierBars(view) {
  view.earlier ??= prependEarlier(view).catch(() => {
    view.earlier = null;
  });
  return view.earlier;
}

async function prependEarlier(view) {
  if (view.complete) return;
  const first = view.candles[0].date;
  const earlier = await api(
    'GET',
    `/candles/${encodeURIComponent(view.ticker)}?to=${toDate(toTime(first) - DAY)}`,
  );
  view.candles = [...earlier, ...view.candles];
  view.complete = true;
  setBars(view);
  setMarkers(view);
  // The benchmarks held start at the old first bar: asked for again from the new one.
  view.benchData = {};
  await setBenchmark(view, view.benchmark);
}

function setMarkers(view) {
  if (!view.markers) return;
  const first = view.candles[0].date;
  const last = view.candles.at(-1).date;
  const shown = view.company.award_days.filter(
    (d) =>
      d.award_date >= first && d.award_date <= last && (!view.filter || d.nlp_classification === view.filter),
  );
  const events = historyEvents(view.company.history).filter((e) => e.date >= first && e.date <= last);
  const markers = dayMarkers(shown);
  // Above the bars like the awards: a marker below them would stretch the price axis under zero.
  const history = events.map((e) => ({
    time: toTime(e.date),
    position: 'aboveBar',
    shape: 'arrowDown',
    color: HISTORY_COLOR,
    text: e.label,
  }));
  view.markers.setMarkers([...markers, ...history].sort((a, b) => a.time - b.time));
  const box = document.getElementById('company-chart');
  box?.setAttribute('data-markers', String(markers.length));
  box?.setAttribute('data-awards', String(shown.reduce((sum, d) => sum + d.count, 0)));
  box?.setAttribute('data-history-marks', String(events.length));
}

/** A bar of the band under each candle a span covers, coloured by its dominant regime. */
function regimeBars(spans, candles, times) {
  let i = 0;
  return candles.flatMap((c, bar) => {
    while (i < spans.length && spans[i].to < c.date) i++;
    const span = spans[i];
    return span && span.from <= c.date
      ? [{ time: times[bar], value: 1, color: REGIME_COLORS[span.dominant] }]
      : [];
  });
}

function drawRegimes(view, chart, HistogramSeries) {
  const spans = view.company.regimes;
  // Its pane keeps a price scale (hiding one pane's scale trips the library when the others show theirs):
  // one without labels.
  const series = chart.addSeries(
    HistogramSeries,
    {
      priceLineVisible: false,
      lastValueVisible: false,
      priceFormat: { type: 'custom', formatter: () => '' },
    },
    REGIME_PANE,
  );
  view.band = series;
  series.priceScale().applyOptions({ scaleMargins: { top: 0, bottom: 0 } });
  chart.panes()[REGIME_PANE]?.setHeight(34);
  view.regimeAt = (date) => spans.find((s) => s.from <= date && date <= s.to)?.dominant;
}

async function setBenchmark(view, ticker) {
  view.benchmark = ticker;
  if (!ticker) {
    view.benchLine.setData([]);
    return;
  }
  view.benchData[ticker] ??= await api('GET', `/candles/${ticker}?from=${view.candles[0].date}`);
  // Adjusted closes: a benchmark's total return, as the company's candles are adjusted.
  view.benchLine.setData(view.benchData[ticker].map((c) => ({ time: toTime(c.date), value: c.adj_close })));
  view.benchLine.applyOptions({ title: ticker, visible: view.relative });
}

function setScale(view, relative) {
  view.relative = relative;
  view.price.priceScale().applyOptions({
    mode: relative ? view.PriceScaleMode.IndexedTo100 : view.PriceScaleMode.Normal,
  });
  view.benchLine.applyOptions({ visible: relative && Boolean(view.benchmark) });
}

async function showYears(view, years) {
  const last = view.candles.at(-1).date;
  const from = years === null ? null : `${Number(last.slice(0, 4)) - years}${last.slice(4)}`;
  if (from === null || from < view.candles[0].date) await earlierBars(view);
  const time = view.chart.timeScale();
  // A history shorter than the range is shown whole.
  if (from === null || from < view.candles[0].date) return time.fitContent();
  time.setVisibleRange({ from: toTime(from), to: toTime(last) });
}

function showLegend(view, legend, param) {
  const bar = param.time ? param.seriesData.get(view.price) : null;
  if (!bar) {
    legend.textContent = '\u00a0';
    return;
  }
  const date = typeof param.time === 'number' ? toDate(param.time) : '';
  const regime = view.regimeAt?.(date);
  const day = view.byDate.get(date);
  legend.replaceChildren(
    `${date}  O ${bar.open.toFixed(2)}  H ${bar.high.toFixed(2)}  L ${bar.low.toFixed(2)}  C ${bar.close.toFixed(2)}`,
    regime ? `  · regime: ${regimeLabel(regime)}` : '',
    day
      ? day.count === 1
        ? `  · 1 award: ${dollars(day.total_value)} (score ${day.top_score ?? '—'})`
        : `  · ${count(day.count)} awards, ${dollars(day.total_value)} in total; highest score ` +
          `${day.top_score ?? '—'} (${dollars(day.top_value)})`
      : '',
  );
}

function regimeKey(company) {
  if (!company.regimes)
    return upgradeNotice('The market regime band', company.regime_tier, state.me.user.plan);
  return h(
    'p',
    { class: 'legend', id: 'regime-key' },
    'Regime band (dominant market regime each week): ',
    Object.entries(REGIME_COLORS).map(([name, color]) =>
      h(
        'span',
        {},
        h('svg', { class: 'sw', width: 12, height: 12, 'aria-hidden': 'true' }, swatch(color)),
        regimeLabel(name),
      ),
    ),
  );
}

function markerKey() {
  return h(
    'p',
    { class: 'legend' },
    'Awards, one marker a day: size by the day’s total value; colour by its highest signal score ',
    [...SCORE_COLORS.map(([, color, label]) => [color, label]), [UNSCORED, 'unscored']].map(
      ([color, label]) =>
        h(
          'span',
          {},
          h('svg', { class: 'sw', width: 12, height: 12, 'aria-hidden': 'true' }, swatch(color)),
          label,
        ),
    ),
    '. Click a marker for its contract.',
  );
}

function swatch(color) {
  const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  for (const [k, v] of Object.entries({ width: 12, height: 12, rx: 2, fill: color }))
    rect.setAttribute(k, String(v));
  return rect;
}

function totals({ by_agency, by_classification }) {
  const table = (title, rows, id) => {
    const max = Math.max(1, ...rows.map((r) => r.total_value));
    return h(
      'div',
      {},
      h('h2', {}, title),
      h(
        'table',
        { id },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['', 'Contracts', 'Total value', ''].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          rows.map((r) =>
            h(
              'tr',
              {},
              h('td', {}, r.name.replaceAll('_', ' ')),
              h('td', { class: 'num' }, count(r.count)),
              h('td', { class: 'num' }, dollars(r.total_value)),
              h('td', { class: 'bar' }, shareBar(r.total_value / max)),
            ),
          ),
        ),
      ),
    );
  };
  return h(
    'section',
    { class: 'card totals' },
    table('By awarding agency', by_agency, 'totals-agency'),
    table('By classification', by_classification, 'totals-classification'),
  );
}

function shareBar(share) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'share');
  svg.setAttribute('viewBox', '0 0 100 8');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-label', percent(share));
  const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  for (const [k, v] of Object.entries({ width: Math.max(1, share * 100), height: 8, class: 'req' }))
    rect.setAttribute(k, String(v));
  svg.append(rect);
  return svg;
}

function fillRecent(view) {
  const rows = view.company.recent_contracts.filter(
    (c) => !view.filter || c.nlp_classification === view.filter,
  );
  view.recent.replaceChildren(
    ...(rows.length
      ? rows.map((c) =>
          h(
            'tr',
            { 'data-contract-id': c.id },
            h('td', {}, c.award_date),
            h('td', { class: 'mono' }, contractLink(c.id)),
            h('td', {}, c.awarding_sub_agency ?? c.awarding_agency),
            h('td', {}, c.nlp_classification.replaceAll('_', ' ')),
            h('td', { class: 'num' }, dollars(c.contract_value)),
            h('td', {}, `${c.match_method} ${percent(c.match_confidence)}`),
          ),
        )
      : [h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No recent contract of this classification.'))]),
  );
}
