// Explorer: a company's corporate history (listing eras, acquisitions, takeovers) as chart marks and a list.
import { h } from './app.js';

export const HISTORY_COLOR = '#3b3b3b';
const RELATION_VERBS = {
  acquired: 'acquired',
  merged: 'merged in',
  subsidiary: 'unit',
  spun_off: 'spun off to it',
  joint_venture: 'venture stake',
  taken_private: 'taken private',
};

/**
 * The dated corporate events of the company: what it acquired or merged (their closing dates), a new
 * listing era (a rename: UTX → RTX), and who took it over. Each is marked on the chart above its day.
 */
export function historyEvents(history) {
  if (!history) return [];
  const events = [];
  for (const a of history.acquisitions) {
    if (a.from)
      events.push({ date: a.from, label: `${RELATION_VERBS[a.relation] ?? a.relation}: ${a.name}` });
  }
  history.listings.forEach((l, i) => {
    if (i > 0 && l.from)
      events.push({ date: l.from, label: `now ${l.ticker} (was ${history.listings[i - 1].ticker})` });
  });
  for (const o of history.owners) {
    if (o.from)
      events.push({ date: o.from, label: `${RELATION_VERBS[o.relation] ?? o.relation} by ${o.name}` });
  }
  return events.sort((a, b) => a.date.localeCompare(b.date));
}

export function historySection(history) {
  const events = historyEvents(history);
  if (!history || (events.length === 0 && history.listings.length < 2)) return null;
  return h(
    'section',
    { class: 'card', id: 'company-history' },
    h('h2', {}, 'Corporate history'),
    h(
      'p',
      { class: 'muted' },
      `Listings: ${history.listings.map((l) => `${l.ticker} ${l.from ?? '…'} → ${l.to ?? 'today'}`).join('; ')}. `,
      'Awards are credited to the company that owned the recipient on the award date.',
    ),
    h(
      'ul',
      {},
      events.map((e) => h('li', { 'data-history-date': e.date }, `${e.date} — ${e.label}`)),
    ),
  );
}
