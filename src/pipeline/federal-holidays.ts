/**
 * US federal holidays (5 U.S.C. 6103), on which DoD posts no contracts: the fixed-date ones moved to
 * the Friday before or Monday after when they fall on a weekend, and the Monday/Thursday ones.
 */

const iso = (year: number, month: number, day: number) =>
  `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** The `n`th `weekday` (0 Sunday) of a month; n = -1 for the last. */
function nthWeekday(year: number, month: number, weekday: number, n: number): string {
  if (n > 0) {
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
    return iso(year, month, 1 + ((weekday - first + 7) % 7) + (n - 1) * 7);
  }
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const last = new Date(Date.UTC(year, month - 1, lastDay)).getUTCDay();
  return iso(year, month, lastDay - ((last - weekday + 7) % 7));
}

/** A fixed-date holiday as observed: Saturday → Friday, Sunday → Monday. */
function observed(year: number, month: number, day: number): string {
  const date = new Date(Date.UTC(year, month - 1, day));
  const weekday = date.getUTCDay();
  if (weekday === 6) date.setUTCDate(day - 1);
  if (weekday === 0) date.setUTCDate(day + 1);
  return date.toISOString().slice(0, 10);
}

const cache = new Map<number, Set<string>>();

export function federalHolidays(year: number): Set<string> {
  let days = cache.get(year);
  if (!days) {
    days = new Set([
      observed(year, 1, 1),
      nthWeekday(year, 1, 1, 3),
      nthWeekday(year, 2, 1, 3),
      nthWeekday(year, 5, 1, -1),
      observed(year, 6, 19),
      observed(year, 7, 4),
      nthWeekday(year, 9, 1, 1),
      nthWeekday(year, 10, 1, 2),
      observed(year, 11, 11),
      nthWeekday(year, 11, 4, 4),
      observed(year, 12, 25),
      // New Year's Day of the next year observed on Friday 31 December.
      observed(year + 1, 1, 1),
    ]);
    cache.set(year, days);
  }
  return days;
}

/** Monday to Friday, not a federal holiday. */
export function isBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday >= 1 && weekday <= 5 && !federalHolidays(Number(date.slice(0, 4))).has(date);
}
