/**
 * When the live announcement source is polled. DoD posts a business day's contracts at about 17:00 New
 * York time, sometimes late in the evening, and amends pages afterwards. So: every `everyMs` (5 min) from
 * 16:30 to 23:00 New York on business days (Monday to Friday but federal holidays), and once at 08:00
 * New York the morning after a business day, for amendments made overnight. After a failure the next
 * poll backs off (doubling, at most an hour), never earlier than the schedule allows.
 */
import { isBusinessDay } from './federal-holidays.ts';

export const NEW_YORK = 'America/New_York';

export interface AnnouncementSchedule {
  /** Poll interval inside the evening window; default 5 min. */
  everyMs: number;
  /** Evening window, New York wall-clock minutes after midnight: 16:30 to 23:00. */
  windowStart: number;
  windowEnd: number;
  /** The morning poll after a business day: 08:00. */
  morning: number;
}

export const DEFAULT_SCHEDULE: AnnouncementSchedule = {
  everyMs: 5 * 60_000,
  windowStart: 16 * 60 + 30,
  windowEnd: 23 * 60,
  morning: 8 * 60,
};

/** The most a failing source waits between polls. */
export const MAX_BACKOFF_MS = 60 * 60_000;

interface WallClock {
  date: string;
  minutes: number;
}

const FORMAT = new Intl.DateTimeFormat('en-US', {
  timeZone: NEW_YORK,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

function parts(at: Date): Record<string, number> {
  return Object.fromEntries(
    FORMAT.formatToParts(at)
      .filter((p) => p.type !== 'literal')
      .map((p) => [p.type, Number(p.value)]),
  );
}

/** New York's wall clock at `at`. */
export function newYorkClock(at: Date): WallClock {
  const p = parts(at);
  const date = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
  return {
    date,
    minutes: (p.hour ?? 0) * 60 + (p.minute ?? 0) + (p.second ?? 0) / 60,
  };
}

/** The instant of `minutes` after midnight, New York time, on `date` (YYYY-MM-DD). */
export function newYorkInstant(date: string, minutes: number): Date {
  const guess = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
  let at = guess;
  // The zone's offset at the instant itself (twice: the first guess may sit across a DST change).
  for (let i = 0; i < 2; i++) {
    const p = parts(new Date(at));
    const wall = Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day ?? 1, p.hour, p.minute, p.second);
    at += guess - wall;
  }
  return new Date(at);
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Whether `at` falls in a business day's evening window. */
export function inEveningWindow(at: Date, schedule = DEFAULT_SCHEDULE): boolean {
  const clock = newYorkClock(at);
  return (
    isBusinessDay(clock.date) && clock.minutes >= schedule.windowStart && clock.minutes < schedule.windowEnd
  );
}

/** The first scheduled poll strictly after `after` (inside a window: `after` + everyMs). */
export function nextScheduled(after: Date, schedule = DEFAULT_SCHEDULE): Date {
  if (inEveningWindow(after, schedule)) {
    const next = new Date(after.getTime() + schedule.everyMs);
    if (inEveningWindow(next, schedule)) return next;
  }
  const today = newYorkClock(after).date;
  for (let day = 0; day < 15; day++) {
    const date = addDays(today, day);
    const candidates: Date[] = [];
    if (isBusinessDay(addDays(date, -1))) candidates.push(newYorkInstant(date, schedule.morning));
    if (isBusinessDay(date)) candidates.push(newYorkInstant(date, schedule.windowStart));
    const found = candidates.find((c) => c.getTime() > after.getTime());
    if (found) return found;
  }
  throw new Error('no scheduled poll within two weeks');
}

/** After `failures` failed polls in a row: the scheduled time, or later by the back-off. */
export function nextPoll(after: Date, failures: number, schedule = DEFAULT_SCHEDULE): Date {
  const scheduled = nextScheduled(after, schedule);
  if (failures <= 0) return scheduled;
  const backoff = Math.min(MAX_BACKOFF_MS, schedule.everyMs * 2 ** failures);
  const earliest = new Date(after.getTime() + backoff);
  if (earliest.getTime() <= scheduled.getTime()) return scheduled;
  return inEveningWindow(earliest, schedule) ? earliest : nextScheduled(earliest, schedule);
}

/**
 * The last business day that has passed by `at` (its evening window closed): its release should have
 * been seen. The announcements health component fails when the newest release seen is older.
 */
export function lastExpectedRelease(at: Date, schedule = DEFAULT_SCHEDULE): string {
  const clock = newYorkClock(at);
  let date = clock.minutes >= schedule.windowEnd ? clock.date : addDays(clock.date, -1);
  while (!isBusinessDay(date)) date = addDays(date, -1);
  return date;
}
