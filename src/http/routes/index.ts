import { ExportSlots } from '../export-guard.ts';
import type { App, Services } from '../types.ts';
import { registerAdminDeliveries } from './admin-deliveries.ts';
import { registerAdminIngest } from './admin-ingest.ts';
import { registerAdminKeys } from './admin-keys.ts';
import { registerAdminUnmatchedRecipients } from './admin-unmatched-recipients.ts';
import { registerAdminUsers, registerAdminUserWebhooks } from './admin-users.ts';
import { registerAdminWebhooks } from './admin-webhooks.ts';
import { registerBenchmarks } from './benchmarks.ts';
import { registerCompanies } from './companies.ts';
import { registerContracts } from './contracts.ts';
import { registerDocs } from './docs.ts';
import { registerEvents } from './events.ts';
import { registerEventsExport } from './events-export.ts';
import { registerHealth } from './health.ts';
import { registerMarket } from './market.ts';
import { registerMetrics } from './metrics.ts';
import { registerOpenApi } from './openapi.ts';
import { registerPredictions } from './predictions.ts';
import { registerRegimes } from './regimes.ts';
import { registerSignals } from './signals.ts';
import { registerSignalsExport } from './signals-export.ts';
import { registerUsage } from './usage.ts';
import { registerWebhooks } from './webhooks.ts';

/**
 * The API's routes. Each file serves the URLs it is named after: `/api/v1/<name>/…` in `<name>.ts`,
 * `/api/v1/admin/<name>/…` in `admin-<name>.ts`, `/api/v1/<name>/export` in `<name>-export.ts`, `/metrics` in metrics.ts, the
 * reference page `/docs` (Redoc over openapi.json) in docs.ts; every path is written out
 * whole, so searching for one finds its route. The order below is the order of `paths` in openapi.json.
 */
export function registerApi(app: App, services: Services): void {
  registerMetrics(app, services);
  registerHealth(app, services);
  registerOpenApi(app);
  registerDocs(app);
  // The two exports share this process's export slots.
  const exports = new ExportSlots();
  registerEvents(app, services);
  registerEventsExport(app, services, exports);
  registerContracts(app, services);
  registerSignals(app, services);
  registerSignalsExport(app, services, exports);
  registerCompanies(app, services);
  registerMarket(app, services);
  registerBenchmarks(app, services);
  registerRegimes(app, services);
  registerPredictions(app, services);
  registerUsage(app, services);
  registerAdminUsers(app, services);
  registerAdminKeys(app, services);
  registerAdminIngest(app, services);
  registerAdminUnmatchedRecipients(app, services);
  registerWebhooks(app, services);
  registerAdminUserWebhooks(app, services);
  registerAdminWebhooks(app, services);
  registerAdminDeliveries(app, services);
}
