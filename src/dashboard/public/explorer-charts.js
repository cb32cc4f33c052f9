// Shared by the explorer's company and contract pages: the charting library (loaded on first use, from
// this origin), number formats and the notices a lower plan sees instead of data.
import { h } from './app.js';

const CHARTS_URL = '/dashboard/assets/vendor/lightweight-charts.mjs';
let charts = null;

/** TradingView Lightweight Charts, imported once when a chart is first drawn: other pages never load it. */
export function loadCharts() {
  charts ??= import(CHARTS_URL);
  return charts;
}

/**
 * The library's own attribution logo would insert a <style> element, which the dashboard's CSP refuses;
 * the licence's notice and link are given here instead, under every chart.
 */
export function attribution() {
  return h(
    'p',
    { class: 'attribution muted' },
    'Charts: TradingView Lightweight Charts™, © TradingView, Inc. — ',
    h('a', { href: 'https://www.tradingview.com/', rel: 'noopener' }, 'tradingview.com'),
  );
}

/** Chart options every explorer chart shares. */
export function baseOptions(height) {
  return {
    height,
    autoSize: true,
    layout: { attributionLogo: false, background: { color: '#ffffff' }, textColor: '#1b1f24', fontSize: 12 },
    grid: { vertLines: { color: '#eef1f4' }, horzLines: { color: '#eef1f4' } },
    rightPriceScale: { borderColor: '#d9dee3' },
    // Decades of daily bars fit the width: the library's default stops zooming out at 0.5 px a bar.
    timeScale: { borderColor: '#d9dee3', minBarSpacing: 0.01 },
  };
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
export const dollars = (value) => (value === null || value === undefined ? '—' : `$${compact.format(value)}`);
export const count = (value) => new Intl.NumberFormat('en-US').format(value);
export const percent = (value) => `${Math.round(value * 100)} %`;

export const REGIME_COLORS = {
  risk_on: '#2e9e5b',
  risk_off: '#d1453b',
  high_volatility: '#e0a526',
  range_bound: '#7b8794',
};
export const regimeLabel = (name) => name.replace('_', ' ');

/** Where the API answers 403 tier_required, the page shows why and where to upgrade instead of data. */
export function upgradeNotice(what, tier, plan) {
  return h(
    'p',
    { class: 'upgrade', 'data-upgrade': what },
    `${what} is shown on the ${tier} tier; your plan (${plan}) does not reach it. `,
    h('a', { href: '#/plan' }, 'See plans'),
  );
}

export const contractLink = (id, text = id) =>
  h('a', { href: `#/contracts/${encodeURIComponent(id)}` }, text);
export const companyLink = (ticker) => h('a', { href: `#/companies/${encodeURIComponent(ticker)}` }, ticker);
