// The company chart's award markers and its time keys: plain functions of the data (no page, no
// library), shared by the chart and its legend.

/** Score buckets of the markers, highest first: [lowest score, colour, label]. */
export const SCORE_COLORS = [
  [85, '#c0262d', '85–100'],
  [70, '#e8871e', '70–84'],
  [50, '#2f6fdb', '50–69'],
  [0, '#8d99a6', 'below 50'],
];
export const UNSCORED = '#c3cad2';
/** Bars keyed by UTC seconds: the library parses 'YYYY-MM-DD' strings far slower than numbers. */
export const toTime = (date) => Date.parse(`${date}T00:00:00Z`) / 1000;
export const toDate = (time) => new Date(time * 1000).toISOString().slice(0, 10);

const scoreColor = (score) =>
  score === null ? UNSCORED : (SCORE_COLORS.find(([low]) => score >= low)?.[1] ?? UNSCORED);
/** $1 M → 0.6, $100 M → 1.8, $10 B → 3: area grows with the order of magnitude, not the dollars. */
const markerSize = (value) => Math.min(3, Math.max(0.5, 0.6 + 0.6 * Math.log10(Math.max(value, 1) / 1e6)));

/**
 * One marker a day, however many awards it had: sized by the day's total value, coloured by its highest
 * score, clicking through to that highest-scored award (the first id among equal scores). Markers of one
 * day would otherwise stack into a column reaching far from the candles. `groups` are the server's
 * award days (one per day and classification: count, total_value and the best award's top_id,
 * top_value, top_score), oldest first.
 */
export function dayMarkers(groups) {
  return mergeDays(groups).map((day) => ({
    time: toTime(day.award_date),
    position: 'aboveBar',
    shape: 'circle',
    color: scoreColor(day.top_score),
    size: markerSize(day.total_value),
    id: day.top_id,
  }));
}

/** The groups of each day as one: counts and totals summed, the best award the highest-scored. */
export function mergeDays(groups) {
  const days = new Map();
  for (const g of groups) {
    const day = days.get(g.award_date);
    if (!day) {
      days.set(g.award_date, { ...g });
      continue;
    }
    day.count += g.count;
    day.total_value += g.total_value;
    const [score, best] = [g.top_score ?? -1, day.top_score ?? -1];
    if (score > best || (score === best && g.top_id < day.top_id))
      Object.assign(day, { top_id: g.top_id, top_value: g.top_value, top_score: g.top_score });
  }
  return [...days.values()].sort((a, b) => (a.award_date < b.award_date ? -1 : 1));
}
