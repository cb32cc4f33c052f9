import { eventExport } from '../../store/export.ts';
import { access } from '../access.ts';
import { ExportParams, exportFormat, exportResponse, sendExport } from '../export.ts';
import type { ExportSlots } from '../export-guard.ts';
import { errorResponses, Query } from '../schemas/common.ts';
import { EventItem } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';
import { EventQuery, eventFilter } from './events.ts';

const { limit: _pageSize, offset: _pageStart, cursor: _position, ...filters } = EventQuery.properties;

const exportSchema = {
  tags: ['events'],
  summary: 'Every event of a filter as one CSV or NDJSON download, streamed',
  description:
    'The filters of /api/v1/events, in its order, without paging. Charged against the rate limit at one ' +
    'request per 200 rows as they stream (see the API guide, "Export"). An account runs at most 2 exports at ' +
    'once (then 429 with Retry-After) and a server 4 (then 503); the key and its plan are checked again before ' +
    'each batch, and an export runs at most EXPORT_DEADLINE_MS.',
  querystring: Query({ ...filters, ...ExportParams }),
  response: { 200: exportResponse('event', EventItem), ...errorResponses(400, 503) },
};

export function registerEventsExport(app: App, services: Services, slots: ExportSlots): void {
  app.get(
    '/api/v1/events/export',
    { config: access.read, schema: exportSchema },
    exportEvents(services, slots),
  );
}

function exportEvents(services: Services, slots: ExportSlots): Handler<typeof exportSchema> {
  return async (request, reply) => {
    const q = request.query;
    const filter = eventFilter(request, q);
    const format = exportFormat(request, q.format);
    const query = eventExport({ ...filter, limit: q.limit ?? null }, format);
    return sendExport(services, slots, request, reply, {
      name: 'events',
      format,
      query,
      withRationale: filter.withRationale,
    });
  };
}
