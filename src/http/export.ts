import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { keyRpm, RATE_WINDOW_MS } from '../domain/plans.ts';
import { ExportStream } from '../services/export.ts';
import { CSV_HEADER, type ExportFormat, type ExportQuery, openExport } from '../store/export.ts';
import { widenRationales } from '../store/rows.ts';
import { errors } from './errors.ts';
import { StringEnum } from './schemas/common.ts';
import type { Services } from './types.ts';

/**
 * What the two export routes share: the format, the headers, the rate-limit charge and the stream. The
 * rules are documented in docs/API.md#export.
 */

/** Rows one request pays for: a full page of the lists. */
export const ROWS_PER_REQUEST = 200;
/** Rows per FETCH, and so the most rows (and bytes) the server holds for one export at a time. */
export const EXPORT_BATCH_ROWS = 1000;
/**
 * Exports running at once in one process. Each holds a pooled connection (10 in all) for its whole
 * length: a cap keeps the rest of the API served while long exports run.
 */
export const MAX_EXPORTS = 4;
/** The most rows one export may be asked for with `limit`. */
export const MAX_EXPORT_LIMIT = 10_000_000;

export const ExportParams = {
  format: Type.Optional(
    StringEnum(['csv', 'ndjson'] as const, {
      description: 'csv (the default) or ndjson; when absent, the Accept header decides.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_EXPORT_LIMIT,
      description: `At most this many rows (1-${MAX_EXPORT_LIMIT}); default: every row of the filter.`,
    }),
  ),
};

const MEDIA: Record<ExportFormat, string> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };

/**
 * The 200 of an export route in the OpenAPI document: either body, and its headers. NDJSON is a
 * sequential media type: OpenAPI 3.1 has no per-item schema (3.2's `itemSchema`), so its schema models
 * the whole body as if it were a JSON array of the lines' items, as the OpenAPI media type registry
 * describes for sequential JSON; each line is one item.
 */
export function exportResponse(what: string, item: TSchema) {
  return {
    description: `Every ${what} of the filter, streamed (chunked, no Content-Length).`,
    headers: {
      'Content-Disposition': {
        type: 'string',
        description: 'attachment; filename="<name>-<UTC date>.<csv|ndjson>"',
      },
      'Cache-Control': {
        type: 'string',
        enum: ['no-store'],
        description: '`no-store`: an export is not kept by any cache.',
      },
    },
    content: {
      'text/csv': {
        schema: Type.String({ description: 'A header record, then one CRLF-terminated record per item.' }),
      },
      'application/x-ndjson': {
        schema: Type.Array(item, {
          description: `Newline-delimited JSON: one line per ${what}, each line one item as in the list (this schema reads the lines as the items of an array).`,
        }),
      },
    },
  };
}

/** `format=` when given; else the Accept header's preference between the two types; else CSV. */
export function exportFormat(request: FastifyRequest, format: ExportFormat | undefined): ExportFormat {
  if (format) return format;
  const accept = request.headers.accept;
  if (!accept) return 'csv';
  const weight = (type: string) => {
    let best = 0;
    for (const part of accept.toLowerCase().split(',')) {
      const [range, ...params] = part.split(';').map((p) => p.trim());
      if (range !== type) continue;
      const q = params.find((p) => p.startsWith('q='));
      best = Math.max(best, q ? Number(q.slice(2)) || 0 : 1);
    }
    return best;
  };
  return weight(MEDIA.ndjson) > weight(MEDIA.csv) ? 'ndjson' : 'csv';
}

/**
 * The rate limit's charge for the rows of one export: the request itself paid for the first
 * ROWS_PER_REQUEST rows; each further ROWS_PER_REQUEST (or part of them) is one more request counted in
 * the key's window before those rows go out. When the window is full the export waits for it, as a client
 * paging the list would have to: the export runs at the key's rate at most.
 */
export function rowCharge(
  { limiter, now }: Services,
  request: FastifyRequest,
): (rows: number) => Promise<void> {
  const principal = request.principal;
  const rpm = principal && keyRpm(principal.plan, principal.mode);
  // Without a principal the app runs without keys at all (a benchmark's bare app): nothing to charge.
  if (!principal || !rpm) return async () => undefined;
  const bucket = `key:${principal.id}`;
  let paid = ROWS_PER_REQUEST;
  let sent = 0;
  return async (rows) => {
    sent += rows;
    while (paid < sent) {
      const decision = await limiter.hit(bucket, rpm, RATE_WINDOW_MS);
      if (decision.allowed) paid += ROWS_PER_REQUEST;
      else await sleep(Math.max(10, decision.resetAt - now().getTime()));
    }
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exports running in this process. */
export class ExportSlots {
  #running = 0;
  constructor(readonly max = MAX_EXPORTS) {}

  /** A slot, or the 503 when none is free; `release` gives it back (once). */
  take(): () => void {
    if (this.#running >= this.max) throw errors.exportsBusy(this.#running);
    this.#running += 1;
    let held = true;
    return () => {
      if (held) this.#running -= 1;
      held = false;
    };
  }

  get running(): number {
    return this.#running;
  }
}

export interface ExportRequest {
  /** The file name's stem: `events` → `events-2026-01-31.csv`. */
  name: string;
  format: ExportFormat;
  query: ExportQuery;
  /** NDJSON of the intelligence tier: stored rationales are widened to the API's objects. */
  withRationale: boolean;
}

/**
 * Answers with the export. Everything that can fail before the first byte — a free slot, a connection,
 * the cursor, the first batch — happens before the headers go out, so it fails as an ordinary error
 * envelope. After that, a failure destroys the response: the chunked body never gets its last chunk.
 */
export async function sendExport(
  services: Services,
  slots: ExportSlots,
  request: FastifyRequest,
  reply: FastifyReply,
  what: ExportRequest,
): Promise<FastifyReply> {
  const { config, db, now } = services;
  const day = now().toISOString().slice(0, 10);
  reply
    .type(`${MEDIA[what.format]}; charset=utf-8`)
    .header('content-disposition', `attachment; filename="${what.name}-${day}.${what.format}"`)
    .header('cache-control', 'no-store')
    .header('vary', 'Accept');
  if (request.method === 'HEAD') return reply.send();
  const release = slots.take();
  try {
    const idleMs = config.exportStallMs + 2 * RATE_WINDOW_MS;
    const cursor = await openExport(db, what.query, { batchRows: EXPORT_BATCH_ROWS, idleMs });
    const first = await cursor.read().catch(async (error: unknown) => {
      await cursor.close();
      throw error;
    });
    const stream = new ExportStream(cursor, {
      head: what.format === 'csv' ? CSV_HEADER : '',
      first,
      batchRows: EXPORT_BATCH_ROWS,
      beforeBatch: rowCharge(services, request),
      transform: what.withRationale && what.format === 'ndjson' ? widenRationales : undefined,
      stallMs: config.exportStallMs,
    });
    stream.once('close', release);
    return reply.send(stream);
  } catch (error) {
    release();
    throw error;
  }
}
