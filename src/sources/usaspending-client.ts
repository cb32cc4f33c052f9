/**
 * USASpending API v2 client for `POST /api/v2/search/spending_by_award/` (contracts, award types A–D):
 * one page per call, retried with exponential backoff and jitter on 429, 5xx, network errors and
 * truncated bodies. Paging, checkpoints and the pipeline live in pipeline/scheduler.ts.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';

export const SPENDING_BY_AWARD_PATH = '/api/v2/search/spending_by_award/';

/** Contracts only: definitive contracts, purchase orders, delivery orders, BPA calls. */
export const CONTRACT_AWARD_TYPES = ['A', 'B', 'C', 'D'] as const;

/** Everything `spendingByAwardResultToBulk` reads; `generated_internal_id` is always returned. */
export const AWARD_FIELDS = [
  'Award ID',
  'Recipient Name',
  'Recipient UEI',
  'Awarding Agency',
  'Awarding Sub Agency',
  'Award Amount',
  'Start Date',
  'Base Obligation Date',
  'Description',
  'NAICS',
  'PSC',
  'Last Modified Date',
] as const;

const USER_AGENT = 'market-intel/0.1';

/** The API's largest page. */
export const MAX_PAGE_SIZE = 100;

export interface Period {
  /** YYYY-MM-DD, inclusive. */
  from: string;
  to: string;
  /** Which date the period filters on; the API's default is the action date. */
  dateType?: 'action_date' | 'last_modified_date';
}

export interface AwardPage {
  page: number;
  hasNext: boolean;
  /** Raw `results[]` items, for `parseSpendingByAwardResults`. */
  results: unknown[];
}

export interface RetryPolicy {
  /** Attempts per page, the first included. */
  maxAttempts: number;
  /** Backoff before retry n is drawn from [b·2ⁿ⁻¹/2, b·2ⁿ⁻¹], capped at maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this fails the page instead of stalling the run. */
  maxRetryAfterMs: number;
}

export interface ClientOptions extends Partial<RetryPolicy> {
  baseUrl: string;
  timeoutMs?: number;
  pageSize?: number;
  /** Injectable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: { page: number; attempt: number; delayMs: number; reason: string }) => void;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 300_000,
};

export class UsaspendingError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'UsaspendingError';
  }
}

/** The request body of one page: contract awards A–D in the period, fixed sort so pages are stable. */
export function requestBody(period: Period, page: number, limit: number): Record<string, unknown> {
  const timePeriod: Record<string, string> = { start_date: period.from, end_date: period.to };
  if (period.dateType && period.dateType !== 'action_date') timePeriod.date_type = period.dateType;
  return {
    filters: { award_type_codes: [...CONTRACT_AWARD_TYPES], time_period: [timePeriod] },
    fields: [...AWARD_FIELDS],
    sort: 'Award ID',
    order: 'asc',
    subawards: false,
    limit,
    page,
  };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Equal jitter: never collapses to zero, and spreads clients that failed together. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

type Attempt =
  | { ok: true; page: AwardPage }
  | { ok: false; retryable: boolean; reason: string; status: number | null; retryAfterMs: number | null };

export class UsaspendingClient {
  readonly baseUrl: string;
  readonly pageSize: number;
  private readonly url: string;
  private readonly retry: RetryPolicy;
  private readonly agent: Agent;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.url = `${this.baseUrl}${SPENDING_BY_AWARD_PATH}`;
    this.pageSize = Math.min(MAX_PAGE_SIZE, options.pageSize ?? MAX_PAGE_SIZE);
    this.retry = {
      maxAttempts: options.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
      baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs,
    };
    const timeout = options.timeoutMs ?? 60_000;
    this.agent = new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connect: { timeout } });
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.random = options.random ?? Math.random;
  }

  /** One page, retried per the policy; throws UsaspendingError when it cannot be had. */
  async fetchPage(period: Period, page: number, signal?: AbortSignal): Promise<AwardPage> {
    const body = JSON.stringify(requestBody(period, page, this.pageSize));
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(body, page, signal);
      if (outcome.ok) return outcome.page;
      const where = `page ${page}, attempt ${attempt}/${this.retry.maxAttempts}`;
      if (!outcome.retryable || attempt >= this.retry.maxAttempts) {
        throw new UsaspendingError(`USASpending ${outcome.reason} (${where})`, outcome.status);
      }
      if (outcome.retryAfterMs !== null && outcome.retryAfterMs > this.retry.maxRetryAfterMs) {
        throw new UsaspendingError(
          `USASpending ${outcome.reason} and asks to wait ${Math.ceil(outcome.retryAfterMs / 1000)} s (${where})`,
          outcome.status,
        );
      }
      const delayMs = outcome.retryAfterMs ?? backoffMs(attempt, this.retry, this.random);
      this.options.onRetry?.({ page, attempt, delayMs, reason: outcome.reason });
      await this.sleep(delayMs, signal);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async attempt(body: string, page: number, signal?: AbortSignal): Promise<Attempt> {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': USER_AGENT },
        body,
        dispatcher: this.agent,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      return failure(true, `request failed: ${(error as Error).message}`, null);
    }
    const { statusCode, headers } = response;
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      if (signal?.aborted) throw error;
      return failure(true, `response body failed: ${(error as Error).message}`, statusCode);
    }
    if (statusCode === 429 || statusCode >= 500) {
      const retryAfterMs = parseRetryAfter(headers['retry-after'], Date.now());
      return failure(true, `answered ${statusCode}`, statusCode, retryAfterMs);
    }
    if (statusCode < 200 || statusCode >= 300) {
      return failure(false, `answered ${statusCode}: ${clip(text)}`, statusCode);
    }
    return readPage(text, page, statusCode);
  }
}

function failure(
  retryable: boolean,
  reason: string,
  status: number | null,
  retryAfterMs: number | null = null,
): Attempt {
  return { ok: false, retryable, reason, status, retryAfterMs };
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine;
}

function readPage(text: string, page: number, status: number): Attempt {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // A 200 cut short by a proxy or a dropped connection: asking again usually succeeds.
    return failure(true, 'sent a body that is not JSON', status);
  }
  if (typeof body !== 'object' || body === null) return failure(false, 'sent a non-object body', status);
  const { results, page_metadata: meta } = body as { results?: unknown; page_metadata?: unknown };
  const hasNext = (meta as { hasNext?: unknown } | undefined)?.hasNext;
  if (!Array.isArray(results) || typeof hasNext !== 'boolean') {
    return failure(false, 'sent a body without results[] and page_metadata.hasNext', status);
  }
  return { ok: true, page: { page, hasNext, results } };
}
