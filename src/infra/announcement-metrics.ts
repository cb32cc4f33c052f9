import { Counter, type Registry } from 'prom-client';

export type PollOutcome = 'ok' | 'failed' | 'skipped';
export type PageResult = 'changed' | 'unchanged' | 'missing' | 'failed';

/**
 * The live announcement poll's counters, in the process that polls: polls by outcome (`skipped`: another
 * process polled, or holds the lock), articles by result, new awardee events, and refusals (403 from the
 * site, feed or article: see docs/OPERATIONS.md).
 */
export class AnnouncementMetrics {
  readonly #polls: Counter<'outcome'>;
  readonly #pages: Counter<'result'>;
  readonly #events: Counter;
  readonly #refusals: Counter;

  constructor(registers: Registry[]) {
    this.#polls = new Counter({
      name: 'market_intel_announcement_polls_total',
      help: 'Polls of the live DoD announcements feed in this process, by outcome: ok, failed, skipped.',
      labelNames: ['outcome'],
      registers,
    });
    this.#pages = new Counter({
      name: 'market_intel_announcement_pages_total',
      help: 'DoD contracts articles asked for by the live poll, by result: changed (new or amended), unchanged, missing (404), failed.',
      labelNames: ['result'],
      registers,
    });
    this.#events = new Counter({
      name: 'market_intel_announcement_events_total',
      help: 'Awardee events the live poll stored (new paragraphs and corrected versions).',
      registers,
    });
    this.#refusals = new Counter({
      name: 'market_intel_announcement_refusals_total',
      help: "Requests DoD's site refused with 403 (its CDN turns away many datacenter addresses).",
      registers,
    });
    for (const outcome of ['ok', 'failed', 'skipped'] as const) this.#polls.inc({ outcome }, 0);
    for (const result of ['changed', 'unchanged', 'missing', 'failed'] as const)
      this.#pages.inc({ result }, 0);
  }

  poll(outcome: PollOutcome): void {
    this.#polls.inc({ outcome });
  }

  pages(result: PageResult, count: number): void {
    this.#pages.inc({ result }, count);
  }

  events(count: number): void {
    this.#events.inc(count);
  }

  refused(count = 1): void {
    this.#refusals.inc(count);
  }
}
