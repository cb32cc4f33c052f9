import { access } from '../../http/access.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { deliveryAttempts, resendDelivery } from '../../webhooks/service.ts';
import { Id } from '../schemas.ts';

/** The dashboard does not page: a delivery has at most six attempts a series, so a thousand is every one. */
const ATTEMPTS = { limit: 1000, offset: 0 };

export function registerDeliveries(app: App, { webhooks }: Services): void {
  app.get(
    '/dashboard/api/deliveries/:id/attempts',
    { config: access.user, schema: { params: Id } },
    async (request) => ({
      data: (await deliveryAttempts(webhooks, request.params.id, signedIn(request).user.id, ATTEMPTS)).rows,
    }),
  );
  app.post(
    '/dashboard/api/deliveries/:id/resend',
    { config: access.user, schema: { params: Id } },
    async (request) => ({
      delivery: await resendDelivery(webhooks, request.params.id, signedIn(request).user.id),
    }),
  );
}
