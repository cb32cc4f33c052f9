// Explorer · Signals (#/signals?engine=…&min_score=…&ticker=…&classification=…&from=…&to=…).
// The API's signals list under the signed-in user's plan tier, filters kept in the hash, paging by
// "Load more", and live rows: a server-sent event says signals were written, the page asks for those
// computed since and puts them on top, marked new.

import { ApiFailure, api, h, render, s, state, when } from './app.js';
import { companyLink, contractLink, dollars, upgradeNotice } from './explorer-charts.js';

const FILTERS = ['engine', 'min_score', 'ticker', 'classification', 'from', 'to'];
const PAGE = 50;
/** A signal computed just before a notification's moment may commit just after it: ask a little earlier. */
const SLACK_MS = 5_000;
/** Without notifications (the server lost its listening connection, or refused the stream). */
const POLL_MS = 30_000;
const SCORES = [
  ['signal_score', 'signal'],
  ['importance_score', 'importance'],
  ['confidence_score', 'confidence'],
  ['risk_score', 'risk'],
];

/** The open stream, poll timer and pending retry of the page on screen; another page closes them. */
let live = null;

function stopLive() {
  if (!live) return;
  live.source?.close();
  clearInterval(live.poll);
  clearTimeout(live.retry);
  live = null;
}
window.addEventListener('hashchange', () => {
  if (!location.hash.startsWith('#/signals')) stopLive();
});

export const filtersOf = (params) =>
  Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? '']).filter(([, v]) => v !== ''));

const query = (filters, extra = {}) => new URLSearchParams({ ...filters, ...extra }).toString();

function scoreBars(signal) {
  return h(
    'div',
    { class: 'score-grid' },
    SCORES.map(([field, label]) =>
      h(
        'div',
        { class: `score-row ${label}` },
        h('span', { class: 'score-label' }, label),
        s(
          'svg',
          {
            viewBox: '0 0 100 8',
            class: 'score-bar',
            role: 'img',
            'aria-label': `${label} ${signal[field]}`,
          },
          s('rect', { class: 'track', x: 0, y: 0, width: 100, height: 8 }),
          s('rect', { class: 'fill', x: 0, y: 0, width: signal[field], height: 8 }),
        ),
        h('span', { class: 'score-value', [`data-${label}`]: signal[field] }, signal[field]),
      ),
    ),
  );
}

function rationale(items) {
  return h(
    'details',
    { class: 'rationale', 'data-rationale': '' },
    h('summary', {}, 'Why'),
    h(
      'ul',
      {},
      items.map((r) =>
        h('li', {}, `${r.rule}: ${r.contribution >= 0 ? '+' : ''}${r.contribution} (${r.detail})`),
      ),
    ),
  );
}

function row({ signal, contract }, fresh) {
  return h(
    'tr',
    {
      class: fresh ? 'new' : '',
      'data-signal-id': signal.id,
      'data-computed-at': signal.computed_at,
      'data-contract-id': contract.id,
    },
    h('td', {}, scoreBars(signal)),
    h(
      'td',
      {},
      h('strong', { class: 'ticker' }, companyLink(contract.ticker)),
      h('div', { class: 'muted' }, contract.recipient_name),
    ),
    h(
      'td',
      {},
      h('span', { class: 'mono' }, contractLink(contract.id)),
      fresh ? h('span', { class: 'badge new' }, 'new') : null,
      h('div', { class: 'muted desc' }, contract.description ?? ''),
      signal.rationale ? rationale(signal.rationale) : null,
    ),
    h(
      'td',
      { class: 'num' },
      h('strong', {}, dollars(contract.contract_value)),
      h('div', { class: 'muted' }, contract.award_date),
    ),
    h('td', {}, contract.awarding_agency, h('div', { class: 'muted' }, contract.awarding_sub_agency ?? '')),
    h('td', {}, contract.nlp_classification.replaceAll('_', ' ')),
    h(
      'td',
      { class: 'num' },
      `${Math.round(contract.match_confidence * 100)} %`,
      h('div', { class: 'muted' }, contract.match_method.replaceAll('_', ' ')),
    ),
    h('td', { class: 'muted' }, when(signal.computed_at)),
  );
}

function filterForm(filters, page) {
  const field = (name, label, input) => h('label', { for: `f-${name}` }, label, input);
  const input = (name, attrs) => h('input', { id: `f-${name}`, name, value: filters[name] ?? '', ...attrs });
  const select = (name, options) =>
    h(
      'select',
      { id: `f-${name}`, name },
      options.map(([value, text, disabled]) =>
        h('option', { value, selected: (filters[name] ?? '') === value, disabled }, text),
      ),
    );
  const engines = page.engines.map((e) => [
    e.name,
    e.reachable ? `${e.name} ${e.version}` : `${e.name} (${e.tier} tier)`,
    false,
  ]);
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filters' },
    field('engine', 'Engine', select('engine', engines)),
    field('min_score', 'Min score', input('min_score', { type: 'number', min: 0, max: 100, step: 1 })),
    field('ticker', 'Ticker', input('ticker', { type: 'text', maxlength: 10, size: 6, placeholder: 'LMT' })),
    field(
      'classification',
      'Classification',
      select('classification', [
        ['', 'any'],
        ...page.classifications.map((c) => [c, c.replaceAll('_', ' ')]),
      ]),
    ),
    field('from', 'Award from', input('from', { type: 'date' })),
    field('to', 'Award to', input('to', { type: 'date' })),
    h('button', { type: 'submit' }, 'Apply'),
    h('a', { href: '#/signals', class: 'reset' }, 'Reset'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = Object.fromEntries(
      [...new FormData(form)].filter(
        ([name, value]) => value !== '' && !(name === 'engine' && value === page.default),
      ),
    );
    const hash = `#/signals${Object.keys(chosen).length ? `?${query(chosen)}` : ''}`;
    // A new history entry per view (linkable, Back returns to the last one); hashchange draws it.
    location.hash = hash;
  });
  return form;
}

/**
 * The engine's tier is above the plan's (the API's 403 tier_required): the notice in place of the data,
 * and the engines for a picker (asked of the default engine, which every plan reaches).
 */
export async function engineRefused(name) {
  const page = withChoices(await api('GET', '/signals?limit=1'));
  const tier = page.engines.find((e) => e.name === name)?.tier ?? 'a higher';
  return { page, notice: upgradeNotice(`The ${name} engine`, tier, state.me.user.plan) };
}

export async function signalsView(params) {
  stopLive();
  const filters = filtersOf(params);
  let page;
  try {
    page = await api('GET', `/signals?${query(filters, { limit: PAGE })}`);
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 403) throw error;
    const refused = await engineRefused(filters.engine);
    render(h('h1', {}, 'Signals'), filterForm(filters, refused.page), refused.notice);
    return;
  }
  page = withChoices(page);
  const tbody = h('tbody', {});
  const status = h('span', { class: 'live-status', 'data-live': 'connecting' }, 'connecting…');
  const counter = h('p', { class: 'muted', 'aria-live': 'polite', 'data-fresh': '' });
  const more = h('button', { type: 'button', class: 'secondary' }, 'Load more');
  let offset = 0;
  const seen = new Map();
  let fresh = 0;

  const append = (items) => {
    for (const item of items) {
      seen.set(item.signal.id, item.signal.computed_at);
      tbody.append(row(item, false));
    }
    offset += items.length;
    more.hidden = items.length < PAGE;
  };
  append(page.data);
  more.addEventListener('click', async () => {
    more.disabled = true;
    const next = await api('GET', `/signals?${query(filters, { limit: PAGE, offset })}`);
    more.disabled = false;
    append(next.data);
  });

  const showsRationale = page.data.some((item) => item.signal.rationale);
  render(
    h('h1', {}, 'Signals'),
    filterForm(filters, page),
    h(
      'p',
      { class: 'muted' },
      `${page.engine} ${page.version}, ranked by signal score. `,
      status,
      ' ',
      showsRationale || !page.data.length
        ? null
        : ' Per-rule rationale ("why") is shown on the intelligence tier.',
    ),
    counter,
    page.data.length
      ? h(
          'table',
          { class: 'signals', 'aria-label': 'Signals' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Scores', 'Company', 'Contract', 'Value', 'Agency', 'Class', 'Match', 'Computed'].map((t) =>
                h('th', { scope: 'col' }, t),
              ),
            ),
          ),
          tbody,
        )
      : h('p', { class: 'muted', 'data-empty': '' }, 'No signals match these filters.'),
    more,
  );

  live = listen(async (since, opened) => {
    const got = await api('GET', `/signals?${query(filters, { since, limit: 200 })}`);
    for (const item of got.data.slice().reverse()) {
      const known = seen.get(item.signal.id);
      if (known === item.signal.computed_at) continue;
      seen.set(item.signal.id, item.signal.computed_at);
      // Computed before the stream opened: there before the page listened, not new.
      if (item.signal.computed_at < opened) continue;
      tbody.querySelector(`tr[data-signal-id="${CSS.escape(item.signal.id)}"]`)?.remove();
      tbody.prepend(row(item, true));
      fresh += 1;
    }
    if (fresh) counter.textContent = `${fresh} new since this page opened (on top, marked new).`;
  }, status);
}

/** The page's pickers: engines (the default marked) and classification labels. */
function withChoices(page) {
  return { ...page, default: page.engines.find((e) => e.default)?.name };
}

/**
 * Follows the signal stream: `refresh(since, opened)` runs once per notification, one at a time (a
 * notification during a refresh runs one more after it), and every POLL_MS while the server cannot
 * notify. `since` is the server's moment of the previous run less SLACK_MS; `opened`, the server's
 * moment when the stream first opened: signals computed before it were there before the page
 * listened (one committed in the round trip between the list's request and the stream's start is
 * shown on the next load, not live). A refresh that fails asks again from the same point next time;
 * one refused for the dashboard's allowance (429) pauses, says so, and runs again after Retry-After.
 */
function listen(refresh, status) {
  const state = { source: null, poll: null, retry: null };
  let opened = null;
  let last = null;
  let since = null;
  let running = false;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    const from = since;
    since = new Date(Date.parse(last) - SLACK_MS).toISOString();
    const failure = await refresh(from ?? since, opened).then(
      () => null,
      (error) => error,
    );
    // Nothing computed meanwhile is skipped: the next run asks from where this one did.
    if (failure && from) since = from;
    running = false;
    if (failure instanceof ApiFailure && failure.status === 429) return pause(failure.retryAfter);
    if (again) {
      again = false;
      await run();
    }
  };
  /** The status shown before a pause, put back after it (a second refusal keeps the first's). */
  let shown = null;
  const pause = (seconds) => {
    shown ??= { text: status.textContent, live: status.dataset.live };
    status.textContent = `too many requests; checking again in ${seconds} s`;
    status.dataset.live = 'limited';
    clearTimeout(state.retry);
    state.retry = setTimeout(() => {
      status.textContent = shown.text;
      status.dataset.live = shown.live;
      shown = null;
      again = false;
      void run();
    }, seconds * 1000);
  };
  const heard = (event) => {
    const data = JSON.parse(event.data);
    last = data.at;
    return data;
  };
  const mode = (text, polling) => {
    status.textContent = text;
    status.dataset.live = polling ? 'polling' : 'live';
    clearInterval(state.poll);
    state.poll = polling ? setInterval(() => void run(), POLL_MS) : null;
  };
  const source = new EventSource('/dashboard/api/signal-stream');
  state.source = source;
  source.addEventListener('ready', (event) => {
    const data = heard(event);
    // A reconnection may have missed notifications: read what came meanwhile.
    if (opened === null) {
      opened = data.at;
      since = new Date(Date.parse(data.at) - SLACK_MS).toISOString();
    } else void run();
    mode(data.live ? '● live' : 'checking every 30 s', !data.live);
  });
  source.addEventListener('signals', (event) => {
    heard(event);
    void run();
  });
  source.addEventListener('resync', (event) => {
    heard(event);
    mode('● live', false);
    void run();
  });
  source.addEventListener('degraded', () => mode('checking every 30 s', true));
  // The session was signed out or expired: reconnecting would only be refused.
  source.addEventListener('end', (event) => {
    if (JSON.parse(event.data).reason === 'shutdown') return;
    source.close();
    mode('signed out', false);
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) mode('checking every 30 s', true);
    else status.textContent = 'reconnecting…';
  });
  return state;
}
