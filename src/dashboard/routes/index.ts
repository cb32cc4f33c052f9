import type { App, Services } from '../../http/types.ts';
import { SessionStreams } from '../streams.ts';
import { registerAdminUsers } from './admin-users.ts';
import { registerCandles } from './candles.ts';
import { registerCompanies } from './companies.ts';
import { registerContracts } from './contracts.ts';
import { registerDeliveries } from './deliveries.ts';
import { registerEvidence } from './evidence.ts';
import { registerKeys } from './keys.ts';
import { registerMe } from './me.ts';
import { registerPredictions } from './predictions.ts';
import { registerSignalStream } from './signal-stream.ts';
import { registerSignals } from './signals.ts';
import { registerSignin } from './signin.ts';
import { registerSignout } from './signout.ts';
import { registerSignup } from './signup.ts';
import { registerSources } from './sources.ts';
import { registerStatic } from './static.ts';
import { registerUsage } from './usage.ts';
import { registerWebhooks } from './webhooks.ts';

/**
 * The dashboard: its page and assets (static.ts serves /dashboard and /dashboard/assets/:file from
 * public/) and its JSON API, `/dashboard/api/<name>/…` in `<name>.ts` and `/dashboard/api/admin/<name>/…`
 * in `admin-<name>.ts`. Each API route declares the session it needs; access.ts checks it, the Origin and
 * the CSRF token of every state change. The routes call the same service functions as the API, so the
 * rules (plans, maxima, webhook target vetting) are the same everywhere.
 */
export function registerDashboard(app: App, services: Services): void {
  // The event streams, which sign-out ends.
  const streams = new SessionStreams(services.db, services.now);
  registerStatic(app);
  registerSignup(app, services);
  registerSignin(app, services);
  registerSignout(app, services, streams);
  registerMe(app, services);
  registerKeys(app, services);
  registerUsage(app, services);
  registerWebhooks(app, services);
  registerDeliveries(app, services);
  registerCompanies(app, services);
  registerCandles(app, services);
  registerContracts(app, services);
  registerAdminUsers(app, services);
  registerSignals(app, services);
  registerPredictions(app, services);
  registerSignalStream(app, services, streams);
  registerEvidence(app, services);
  registerSources(app, services);
}
