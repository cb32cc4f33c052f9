import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { RATE_WINDOW_MS } from '../domain/plans.ts';
import { ExportStream } from '../services/export.ts';
import { CSV_HEADER, type ExportFormat, type ExportQuery, openExport } from '../store/export.ts';
import { widenRationales } from '../store/rows.ts';
import { batchGuard, type ExportSlots } from './export-guard.ts';
import { StringEnum } from './schemas/common.ts';
import type { Services } from './types.ts';

/**
 * What the two export routes share: the format, the headers and the stream (its slots and the checks
 * before each batch are export-guard.ts's). The rules are documented in docs/API.md#export.
 */

/** Rows per FETCH, and so the most rows (and bytes) the server holds for one export at a time. */
export const EXPORT_BATCH_ROWS = 1000;
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
    .header('vary', 'Accept');
  if (request.method === 'HEAD') return reply.send();
  const release = slots.take(request.principal?.user_id ?? null);
  const deadlineAt = Date.now() + config.exportDeadlineMs;
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
      beforeBatch: batchGuard(services, request.principal, { deadlineAt, stallMs: config.exportStallMs }),
      transform: what.withRationale && what.format === 'ndjson' ? widenRationales : undefined,
      stallMs: config.exportStallMs,
      // One deadline for the whole export, from its admission: the first read counted.
      deadlineMs: Math.max(0, deadlineAt - Date.now()),
    });
    stream.once('close', release);
    return reply.send(stream);
  } catch (error) {
    release();
    throw error;
  }
}
