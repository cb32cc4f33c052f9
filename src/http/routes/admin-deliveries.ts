import { access } from '../access.ts';
import { errorResponses, IdParams, Query } from '../schemas/common.ts';
import { AttemptList, DeliveryResponse } from '../schemas/webhooks.ts';
import type { App, Services } from '../types.ts';
import { handleAttempts, handleResend } from './webhooks.ts';

const attemptsSchema = {
  tags: ['admin'],
  summary: "A delivery's attempts, every series, in order",
  params: IdParams('Delivery'),
  querystring: Query({}),
  response: { 200: AttemptList, ...errorResponses(400, 404) },
};

const resendSchema = {
  tags: ['admin'],
  summary: 'Resend a delivery: a new attempt series with the same delivery id, due now',
  params: IdParams('Delivery'),
  querystring: Query({}),
  response: { 202: DeliveryResponse, ...errorResponses(400, 404, 409) },
};

/** Anyone's delivery: the account routes' handlers, with no owner to check. */
const anyone = () => null;

export function registerAdminDeliveries(app: App, { webhooks: ctx }: Services): void {
  app.get(
    '/api/v1/admin/deliveries/:id/attempts',
    { config: access.admin, schema: attemptsSchema },
    handleAttempts(ctx, anyone),
  );
  app.post(
    '/api/v1/admin/deliveries/:id/resend',
    { config: access.admin, schema: resendSchema },
    handleResend(ctx, anyone),
  );
}
