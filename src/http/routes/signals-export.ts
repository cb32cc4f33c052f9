import { signalExport } from '../../store/export.ts';
import { access } from '../access.ts';
import { ExportParams, exportFormat, exportResponse, sendExport } from '../export.ts';
import type { ExportSlots } from '../export-guard.ts';
import { errorResponses, Query } from '../schemas/common.ts';
import { SignalItem } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';
import { SignalQuery, signalFilter } from './signals.ts';

const { limit: _pageSize, offset: _pageStart, cursor: _position, ...filters } = SignalQuery.properties;

const exportSchema = {
  tags: ['signals'],
  summary: "Every signal of an engine's current version matching a filter, as one CSV or NDJSON download",
  description:
    'The filters of /api/v1/signals, in its order, without paging. Charged against the rate limit at one ' +
    'request per 200 rows as they stream (see the API guide, "Export"). An account runs at most 2 exports at ' +
    'once (then 429 with Retry-After) and a server 4 (then 503); the key and its plan are checked again before ' +
    'each batch, and an export runs at most EXPORT_DEADLINE_MS.',
  querystring: Query({ ...filters, ...ExportParams }),
  response: { 200: exportResponse('signal', SignalItem), ...errorResponses(400, 503) },
};

export function registerSignalsExport(app: App, services: Services, slots: ExportSlots): void {
  app.get(
    '/api/v1/signals/export',
    { config: access.read, schema: exportSchema },
    exportSignals(services, slots),
  );
}

function exportSignals(services: Services, slots: ExportSlots): Handler<typeof exportSchema> {
  return async (request, reply) => {
    const q = request.query;
    const filter = signalFilter(request, q);
    const format = exportFormat(request, q.format);
    const query = signalExport({ ...filter, limit: q.limit ?? null }, format);
    return sendExport(services, slots, request, reply, {
      name: 'signals',
      format,
      query,
      withRationale: filter.withRationale,
    });
  };
}
