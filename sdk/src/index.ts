/**
 * The market-intel API client. Every operation of the OpenAPI document is a method, named in `API`
 * below; its arguments and result are the generated types (`generated.ts`).
 *
 *   const client = new MarketIntel({ apiKey, baseUrl: 'http://127.0.0.1:8080' });
 *   const { data } = await client.events.list({ ticker: 'LMT', limit: 5 });
 *   for await (const signal of client.signals.iterate({ min_score: 80 })) …
 */
import { type OperationId, type OperationInfo, type Operations, operations } from './generated.js';
import { followLink, nextLink, nextPageQuery, pageItems } from './pagination.js';
import {
  type FetchFunction,
  type RateLimitInfo,
  type RawResponse,
  type RequestOptions,
  type RetryPolicy,
  SDK_VERSION,
  Transport,
} from './transport.js';

export * from './errors.js';
export type * from './generated.js';
export { operations } from './generated.js';
export type { RateLimitInfo, RequestOptions, RetryPolicy } from './transport.js';
export { SDK_VERSION } from './transport.js';
export * from './webhooks.js';

export interface ClientOptions extends Partial<RetryPolicy> {
  /** An `iv_live_…` or `iv_test_…` key; optional only for the open operations (health, openapi). */
  apiKey?: string;
  /** The server's origin, e.g. `http://127.0.0.1:8080` (default); the paths carry `/api/v1`. */
  baseUrl?: string;
  /** Defaults to the global fetch (Node 20+). */
  fetch?: FetchFunction;
  /** Sent with every request. */
  headers?: Record<string, string>;
}

export type PagedOperationId = {
  [K in OperationId]: (typeof operations)[K]['paging'] extends null ? never : K;
}[OperationId];
export type MethodArgs<K extends OperationId> = [...Operations[K]['args'], options?: RequestOptions];
export type Result<K extends OperationId> = Operations[K]['response'];
/** What an iterator yields: an item of `data`, or of the bare array. */
export type Item<K extends OperationId> =
  Result<K> extends { data: Array<infer I> } ? I : Result<K> extends Array<infer I> ? I : never;

const PAGED: unique symbol = Symbol('paged');
interface Paged<K extends PagedOperationId> {
  readonly [PAGED]: K;
}
const paged = <K extends PagedOperationId>(id: K): Paged<K> => ({ [PAGED]: id });

/** The client's methods: an operationId is a call, `paged(id)` an async iterator over its pages. */
const API = {
  health: { get: 'getHealth', live: 'getHealthLive' },
  openapi: { get: 'getOpenapiJson' },
  events: { list: 'getEvents', iterate: paged('getEvents'), export: 'getEventsExport' },
  contracts: {
    list: 'getContracts',
    iterate: paged('getContracts'),
    get: 'getContractsId',
    getScore: 'getContractsIdScore',
    score: 'postContractsIdScore',
  },
  signals: { list: 'getSignals', iterate: paged('getSignals'), export: 'getSignalsExport' },
  companies: { get: 'getCompaniesTicker' },
  market: { candles: 'getMarketCandlesTicker', iterateCandles: paged('getMarketCandlesTicker') },
  benchmarks: { list: 'getBenchmarks', iterate: paged('getBenchmarks') },
  regimes: { list: 'getRegimes', iterate: paged('getRegimes') },
  predictions: { list: 'getPredictions', iterate: paged('getPredictions') },
  usage: { get: 'getUsage' },
  webhooks: {
    list: 'getWebhooks',
    iterate: paged('getWebhooks'),
    create: 'postWebhooks',
    delete: 'deleteWebhooksId',
    enable: 'postWebhooksIdEnable',
    test: 'postWebhooksIdTest',
    rotateSecret: 'postWebhooksIdRotateSecret',
    deliveries: {
      list: 'getWebhooksIdDeliveries',
      iterate: paged('getWebhooksIdDeliveries'),
      attempts: 'getWebhooksDeliveriesIdAttempts',
      iterateAttempts: paged('getWebhooksDeliveriesIdAttempts'),
      resend: 'postWebhooksDeliveriesIdResend',
    },
  },
  admin: {
    metrics: 'getMetrics',
    ingest: 'postAdminIngest',
    users: {
      list: 'getAdminUsers',
      iterate: paged('getAdminUsers'),
      create: 'postAdminUsers',
      update: 'patchAdminUsersId',
      createKey: 'postAdminUsersIdKeys',
      createWebhook: 'postAdminUsersIdWebhooks',
      listWebhooks: 'getAdminUsersIdWebhooks',
      iterateWebhooks: paged('getAdminUsersIdWebhooks'),
    },
    keys: { revoke: 'deleteAdminKeysId' },
    webhooks: {
      delete: 'deleteAdminWebhooksId',
      enable: 'postAdminWebhooksIdEnable',
      deliveries: {
        list: 'getAdminWebhooksIdDeliveries',
        iterate: paged('getAdminWebhooksIdDeliveries'),
        attempts: 'getAdminDeliveriesIdAttempts',
        iterateAttempts: paged('getAdminDeliveriesIdAttempts'),
        resend: 'postAdminDeliveriesIdResend',
      },
    },
    unmatchedRecipients: {
      list: 'getAdminUnmatchedRecipients',
      iterate: paged('getAdminUnmatchedRecipients'),
    },
  },
} as const;

type Bind<T> = T extends OperationId
  ? (...args: MethodArgs<T>) => Promise<Result<T>>
  : T extends Paged<infer K>
    ? (...args: MethodArgs<K>) => AsyncGenerator<Item<K>, void, undefined>
    : { readonly [P in keyof T]: Bind<T[P]> };
type Api = Bind<typeof API>;

type Named<T> = T extends OperationId
  ? T
  : T extends Paged<PagedOperationId>
    ? never
    : { [P in keyof T]: Named<T[P]> }[keyof T];
/** Fails to compile, naming the operation, when the document has an operation `API` leaves out. */
type EveryOperationNamed<Missing extends never> = Missing;
export type Unnamed = EveryOperationNamed<Exclude<OperationId, Named<typeof API>>>;

/** Each method's dotted name and operation, e.g. `{name: 'contracts.get', operationId: 'getContractsId'}`. */
export function methodNames(): { name: string; operationId: OperationId; paged: boolean }[] {
  const walk = (node: object, prefix: string): ReturnType<typeof methodNames> =>
    Object.entries(node).flatMap(([key, value]) => {
      const name = `${prefix}${key}`;
      if (typeof value === 'string') return [{ name, operationId: value as OperationId, paged: false }];
      if (PAGED in value)
        return [{ name, operationId: (value as Paged<PagedOperationId>)[PAGED], paged: true }];
      return walk(value, `${name}.`);
    });
  return walk(API, '');
}

export class MarketIntel {
  readonly health: Api['health'];
  readonly openapi: Api['openapi'];
  readonly events: Api['events'];
  readonly contracts: Api['contracts'];
  readonly signals: Api['signals'];
  readonly companies: Api['companies'];
  readonly market: Api['market'];
  readonly benchmarks: Api['benchmarks'];
  readonly regimes: Api['regimes'];
  readonly predictions: Api['predictions'];
  readonly usage: Api['usage'];
  readonly webhooks: Api['webhooks'];
  readonly admin: Api['admin'];
  private readonly transport: Transport;
  private readonly baseUrl: string;

  constructor(options: ClientOptions = {}) {
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== 'function') throw new TypeError('no fetch: pass options.fetch (Node 20+ has one)');
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `market-intel-sdk/${SDK_VERSION}`,
      ...options.headers,
    };
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    this.transport = new Transport(
      fetchFn,
      {
        maxRetries: options.maxRetries ?? 2,
        retryDelayMs: options.retryDelayMs ?? 500,
        maxRetryDelayMs: options.maxRetryDelayMs ?? 8_000,
        timeoutMs: options.timeoutMs ?? 30_000,
      },
      headers,
    );
    const api = this.bind(API) as Api;
    this.health = api.health;
    this.openapi = api.openapi;
    this.events = api.events;
    this.contracts = api.contracts;
    this.signals = api.signals;
    this.companies = api.companies;
    this.market = api.market;
    this.benchmarks = api.benchmarks;
    this.regimes = api.regimes;
    this.predictions = api.predictions;
    this.usage = api.usage;
    this.webhooks = api.webhooks;
    this.admin = api.admin;
  }

  /** The `X-RateLimit-*` headers of the latest answer (null before the first). */
  get rateLimit(): RateLimitInfo | null {
    return this.transport.rateLimit;
  }

  /** Calls an operation by its operationId (what every method does). */
  request<K extends OperationId>(id: K, ...args: MethodArgs<K>): Promise<Result<K>> {
    return this.call(id, args) as Promise<Result<K>>;
  }

  /** Every item of every page of a paged operation, fetching each page when the previous one is used up. */
  iterate<K extends PagedOperationId>(
    id: K,
    ...args: MethodArgs<K>
  ): AsyncGenerator<Item<K>, void, undefined> {
    return this.pages(id, args) as AsyncGenerator<Item<K>, void, undefined>;
  }

  private async call(id: OperationId, args: readonly unknown[]): Promise<unknown> {
    const info: OperationInfo = operations[id];
    const call = this.split(info, args);
    const response = await this.transport.send(info.method, this.url(info, call), call.body, call.options);
    return parse(info, response);
  }

  private async *pages(id: OperationId, args: readonly unknown[]): AsyncGenerator<unknown, void, undefined> {
    const info: OperationInfo = operations[id];
    const call = this.split(info, args);
    let url: string | null = this.url(info, call);
    while (url !== null) {
      const response: RawResponse = await this.transport.send(info.method, url, undefined, call.options);
      const page = parse(info, response);
      yield* pageItems(page);
      if (info.paging === 'link') {
        const next = nextLink(response.headers.get('link'));
        url = next === null ? null : followLink(next, this.baseUrl);
      } else {
        const query = nextPageQuery(call.query, page, info.query.includes('offset'));
        url = query === null ? null : this.url(info, { ...call, query });
      }
    }
  }

  private bind(node: object): object {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        if (typeof value === 'string') {
          return [key, (...args: unknown[]) => this.call(value as OperationId, args)];
        }
        if (PAGED in value) {
          const id = (value as Paged<PagedOperationId>)[PAGED];
          return [key, (...args: unknown[]) => this.pages(id, args)];
        }
        return [key, this.bind(value)];
      }),
    );
  }

  /** Positional arguments: path parameters, then the body (if any), the query (if any), the options. */
  private split(info: OperationInfo, args: readonly unknown[]) {
    const path = args.slice(0, info.pathParams.length);
    let next = info.pathParams.length;
    const body = info.body === 'none' ? undefined : args[next++];
    const query = info.query.length > 0 ? ((args[next++] ?? {}) as Record<string, unknown>) : {};
    const options = (args[next] ?? {}) as RequestOptions;
    return { path, body: body === undefined ? undefined : JSON.stringify(body), query, options };
  }

  private url(info: OperationInfo, call: { path: unknown[]; query: Record<string, unknown> }): string {
    let index = 0;
    const path = info.path.replace(/\{[^}]+\}/g, (param) => {
      const value = call.path[index++];
      if (value === undefined || value === null || value === '') throw new TypeError(`${param} is required`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(call.query)) {
      if (value !== undefined && value !== null) search.set(key, String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }
}

function parse(info: OperationInfo, response: RawResponse): unknown {
  if (info.response === 'text') return response.text;
  if (info.response === 'none' || response.text === '') return undefined;
  return JSON.parse(response.text);
}
