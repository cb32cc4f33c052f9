/**
 * A local stand-in for `POST /api/v2/search/spending_by_award/` that answers in the real response shape,
 * built from the recorded responses in data/fixtures/. It pages by the request's `page` and `limit`,
 * can be told to fail (429 with Retry-After, 5xx, a dropped connection, a cut-off body), and records
 * every request it got.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { contractAwardToBulk } from '../../src/sources/awards.ts';

type Json = Record<string, unknown>;

const FIXTURES = [
  'nasa_spending_by_award_contracts.json',
  'nasa_spending_by_award_search_results_contracts.json',
];

function loadFixture(name: string): { results: Json[]; messages: unknown } {
  const url = new URL(`../../data/fixtures/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as { results: Json[]; messages: unknown };
}

/** The real recorded `results[]` items, in file order (an id may repeat, as it does in the source). */
export function recordedResults(): Json[] {
  return FIXTURES.flatMap((name) => loadFixture(name).results);
}

/**
 * Real awards in bulk-download column names (the shipped `usaspending_contract_awards.json.gz`, as
 * the demo loader maps it), for the file importer and the admin endpoint.
 */
export function recordedBulkRecords(): Json[] {
  const url = new URL('../../data/awards/usaspending_contract_awards.json.gz', import.meta.url);
  const items = JSON.parse(gunzipSync(readFileSync(url)).toString('utf8')) as Json[];
  return items.map(contractAwardToBulk);
}

const MESSAGES = loadFixture(FIXTURES[0] ?? '').messages;

/**
 * `count` records made from the recorded ones by varying the id: `tag` and the serial go into the
 * PIID part of the award id, so every record is distinct and ids never meet those of other tests.
 */
export function syntheticResults(count: number, tag: string): Json[] {
  const base = [...new Map(recordedResults().map((r) => [r.generated_internal_id, r])).values()];
  return Array.from({ length: count }, (_, i) => {
    const source = base[i % base.length] as Json;
    const suffix = `${tag}${i}`;
    return {
      ...source,
      internal_id: 900_000_000 + i,
      'Award ID': `${String(source['Award ID'])}${suffix}`,
      generated_internal_id: String(source.generated_internal_id).replace(
        /^CONT_AWD_([^_]+)_/,
        `CONT_AWD_$1${suffix}_`,
      ),
    };
  });
}

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'drop' }
  | { kind: 'truncate' };

export interface RecordedRequest {
  page: number;
  body: Json;
}

export class FakeUsaspending {
  readonly requests: RecordedRequest[] = [];
  /** Milliseconds to wait before answering (to keep a request in flight). */
  delayMs = 0;
  private records: Json[];
  private readonly once: { fault: Fault; page: number | null }[] = [];
  private readonly always = new Map<number, Fault>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    records: Json[],
  ) {
    this.records = records;
  }

  static async start(records: Json[]): Promise<FakeUsaspending> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeUsaspending(server, `http://127.0.0.1:${port}`, records);
    server.on('request', (req, res) => void fake.handle(req, res));
    return fake;
  }

  setRecords(records: Json[]): void {
    this.records = records;
  }

  /** The next `times` requests (of `page`, when given) meet `fault`. */
  failNext(times: number, fault: Fault, page: number | null = null): void {
    for (let i = 0; i < times; i++) this.once.push({ fault, page });
  }

  /** Every request of `page` meets `fault` until `heal()`. */
  failAlways(page: number, fault: Fault): void {
    this.always.set(page, fault);
  }

  heal(): void {
    this.once.length = 0;
    this.always.clear();
  }

  pagesRequested(): number[] {
    return this.requests.map((r) => r.page);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    if (req.method !== 'POST' || req.url !== '/api/v2/search/spending_by_award/') {
      return send(res, 404, { detail: 'Not found.' });
    }
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      return send(res, 400, { detail: 'Malformed JSON' });
    }
    const page = typeof body.page === 'number' ? body.page : 1;
    this.requests.push({ page, body });
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const fault = this.takeFault(page);
    if (fault) return applyFault(res, fault);
    const filters = body.filters as Json | undefined;
    if (!Array.isArray(filters?.award_type_codes) || !Array.isArray(filters?.time_period)) {
      return send(res, 422, { detail: 'Missing value: filters.award_type_codes, filters.time_period' });
    }
    send(res, 200, this.pageBody(page, typeof body.limit === 'number' ? body.limit : 10));
  }

  private takeFault(page: number): Fault | null {
    const always = this.always.get(page);
    if (always) return always;
    const i = this.once.findIndex((f) => f.page === null || f.page === page);
    if (i < 0) return null;
    return this.once.splice(i, 1)[0]?.fault ?? null;
  }

  private pageBody(page: number, limit: number): Json {
    const results = this.records.slice((page - 1) * limit, page * limit);
    const last = results.at(-1);
    return {
      spending_level: 'awards',
      limit,
      results,
      page_metadata: {
        page,
        hasNext: page * limit < this.records.length,
        last_record_unique_id: last?.internal_id ?? null,
        last_record_sort_value: last ? String(last['Award ID']) : null,
      },
      messages: MESSAGES,
    };
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function applyFault(res: ServerResponse, fault: Fault): void {
  if (fault.kind === 'drop') {
    res.socket?.destroy();
    return;
  }
  if (fault.kind === 'truncate') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"spending_level":"awards","limit":100,"results":[{"internal_id":');
    return;
  }
  const headers: Record<string, string> = fault.retryAfter ? { 'retry-after': fault.retryAfter } : {};
  send(
    res,
    fault.status,
    { detail: fault.status === 429 ? 'Request was throttled.' : 'Server Error' },
    headers,
  );
}
