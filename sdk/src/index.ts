/**
 * The market-intel API client. Every operation of the OpenAPI document is a method, named in `API`
 * below; its arguments and result are the generated types (`generated.ts`).
 *
 *   const client = new MarketIntel({ apiKey, baseUrl: 'http://127.0.0.1:8080' });
 *   const { data } = await client.events.list({ ticker: 'LMT', limit: 5 });
 *   for await (const signal of client.signals.iterate({ min_score: 80 })) …
 */
import { ExportBody } from './exports.js';
import { type OperationId, type OperationInfo, operations } from './generated.js';
import {
  type Bind,
  type ConditionalArgs,
  type Item,
  isMarker,
  KIND,
  type Kind,
  type MethodArgs,
  type Named,
  type PagedOperationId,
  paged,
  type Result,
  rows,
  stream,
} from './methods.js';
import { followLink, nextLink, nextPageQuery, pageItems } from './pagination.js';
import { parse, pathAndQuery, splitArgs } from './request.js';
import {
  type ApiPromise,
  apiPromise,
  type Conditional,
  type RateLimitInfo,
  type WithResponse,
} from './response.js';
import {
  type Answer,
  DEFAULT_POLICY,
  definedOnly,
  type FetchFunction,
  type RequestOptions,
  type RetryPolicy,
  SDK_VERSION,
  Transport,
} from './transport.js';

export * from './errors.js';
export { EXPORT_CSV_COLUMNS, ExportBody, type ExportCsvRow, type ExportFormat } from './exports.js';
export type * from './generated.js';
export { operations } from './generated.js';
export type {
  ConditionalArgs,
  ExportMethod,
  ExportOperationId,
  ExportQuery,
  ExportRow,
  Item,
  Method,
  MethodArgs,
  PagedOperationId,
  Result,
} from './methods.js';
export type { ApiPromise, Conditional, RateLimitInfo, ResponseMeta, WithResponse } from './response.js';
export type { ConditionalOptions, RequestOptions, RetryPolicy } from './transport.js';
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

/** The client's methods: an operationId is a call, `paged(id)` an async iterator over its pages. */
const API = {
  health: { get: 'getHealth', live: 'getHealthLive' },
  openapi: { get: 'getOpenapiJson' },
  events: {
    list: 'getEvents',
    iterate: paged('getEvents'),
    export: 'getEventsExport',
    exportStream: stream('getEventsExport'),
    exportRows: rows('getEventsExport'),
  },
  contracts: {
    list: 'getContracts',
    iterate: paged('getContracts'),
    get: 'getContractsId',
    getScore: 'getContractsIdScore',
    score: 'postContractsIdScore',
  },
  signals: {
    list: 'getSignals',
    iterate: paged('getSignals'),
    export: 'getSignalsExport',
    exportStream: stream('getSignalsExport'),
    exportRows: rows('getSignalsExport'),
  },
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
      listKeys: 'getAdminUsersIdKeys',
      iterateKeys: paged('getAdminUsersIdKeys'),
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

type Api = Bind<typeof API>;

/** Fails to compile, naming the operation, when the document has an operation `API` leaves out. */
type EveryOperationNamed<Missing extends never> = Missing;
export type Unnamed = EveryOperationNamed<Exclude<OperationId, Named<typeof API>>>;

/** Each method's dotted name and operation, e.g. `{name: 'contracts.get', operationId: 'getContractsId'}`. */
export function methodNames(): {
  name: string;
  operationId: OperationId;
  paged: boolean;
  kind: 'call' | Kind;
}[] {
  const walk = (node: object, prefix: string): ReturnType<typeof methodNames> =>
    Object.entries(node).flatMap(([key, value]) => {
      const name = `${prefix}${key}`;
      if (typeof value === 'string')
        return [{ name, operationId: value as OperationId, paged: false, kind: 'call' as const }];
      if (isMarker(value))
        return [{ name, operationId: value.id, paged: value[KIND] === 'paged', kind: value[KIND] }];
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
    this.transport = new Transport(fetchFn, { ...DEFAULT_POLICY, ...definedOnly(options) }, headers);
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
  request<K extends OperationId>(id: K, ...args: ConditionalArgs<K>): ApiPromise<Conditional<Result<K>>>;
  request<K extends OperationId>(id: K, ...args: MethodArgs<K>): ApiPromise<Result<K>>;
  request(id: OperationId, ...args: unknown[]): ApiPromise<unknown> {
    return this.call(id, args);
  }

  /** Every item of every page of a paged operation, fetching each page when the previous one is used up. */
  iterate<K extends PagedOperationId>(
    id: K,
    ...args: MethodArgs<K>
  ): AsyncGenerator<Item<K>, void, undefined> {
    return this.pages(id, args) as AsyncGenerator<Item<K>, void, undefined>;
  }

  private call(id: OperationId, args: readonly unknown[]): ApiPromise<unknown> {
    const info: OperationInfo = operations[id];
    const call = splitArgs(info, args);
    const send = async (): Promise<WithResponse<unknown>> => {
      const answer = await this.transport.send(info.method, this.url(info, call), call.body, call.options);
      const data = parse(info, answer);
      if (!call.options.ifNoneMatch) return { data, response: answer.meta };
      const { etag } = answer.meta;
      const result: Conditional<unknown> =
        answer.meta.status === 304 ? { notModified: true, etag } : { notModified: false, data, etag };
      return { data: result, response: answer.meta };
    };
    return apiPromise(send());
  }

  /** An export's answer once its headers are in (retried like any GET until then), its body unread. */
  private async exportBody(id: OperationId, args: readonly unknown[]): Promise<ExportBody<unknown>> {
    const info: OperationInfo = operations[id];
    const [query = {}, options = {}] = args as [Record<string, unknown>?, RequestOptions?];
    const call = { path: [], query: { ...query, format: query.format ?? 'csv' }, options };
    const answer = await this.transport.send(info.method, this.url(info, call), undefined, options, true);
    if (answer.body === null)
      throw new TypeError(`${info.path} answered ${answer.meta.status} without a body`);
    return new ExportBody(answer.meta, answer.body, options.signal);
  }

  private async *exportRows(
    id: OperationId,
    args: readonly unknown[],
  ): AsyncGenerator<unknown, void, undefined> {
    yield* (await this.exportBody(id, args)).rows();
  }

  private async *pages(id: OperationId, args: readonly unknown[]): AsyncGenerator<unknown, void, undefined> {
    const info: OperationInfo = operations[id];
    const call = splitArgs(info, args);
    let url: string | null = this.url(info, call);
    while (url !== null) {
      const answer: Answer = await this.transport.send(info.method, url, undefined, call.options);
      const page = parse(info, answer);
      yield* pageItems(page);
      if (info.paging === 'link') {
        const next = nextLink(answer.meta.headers.get('link'));
        url = next === null ? null : followLink(next, this.baseUrl);
      } else {
        const query = nextPageQuery(call.query, page, info.query.includes('offset'));
        url = query === null ? null : this.url(info, { ...call, query });
      }
    }
  }

  private bind(node: object): object {
    const methods: Record<Kind, (id: OperationId, args: unknown[]) => unknown> = {
      paged: (id, args) => this.pages(id, args),
      stream: (id, args) => this.exportBody(id, args),
      rows: (id, args) => this.exportRows(id, args),
    };
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        if (typeof value === 'string') {
          return [key, (...args: unknown[]) => this.call(value as OperationId, args)];
        }
        if (isMarker(value)) {
          const method = methods[value[KIND]];
          return [key, (...args: unknown[]) => method(value.id, args)];
        }
        return [key, this.bind(value)];
      }),
    );
  }

  private url(info: OperationInfo, call: { path: unknown[]; query: Record<string, unknown> }): string {
    return `${this.baseUrl}${pathAndQuery(info, call)}`;
  }
}
