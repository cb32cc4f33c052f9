import { access } from '../access.ts';
import { errorResponses, IdParams, Query } from '../schemas/common.ts';
import { DeliveriesQuery, DeliveryList, WebhookResponse } from '../schemas/webhooks.ts';
import type { App, Services } from '../types.ts';
import { handleDelete, handleDeliveries, handleEnable } from './webhooks.ts';

const deleteSchema = {
  tags: ['admin'],
  summary: 'Delete a webhook (its deliveries stay listed)',
  params: IdParams('Webhook'),
  querystring: Query({}),
  response: { 200: WebhookResponse, ...errorResponses(400, 404) },
};

const enableSchema = {
  tags: ['admin'],
  summary:
    'Re-enable a suspended or backed-off webhook: its failure streak is cleared and its waiting deliveries are due now',
  params: IdParams('Webhook'),
  querystring: Query({}),
  response: { 200: WebhookResponse, ...errorResponses(400, 404, 409) },
};

const deliveriesSchema = {
  tags: ['admin'],
  summary: "A webhook's deliveries, newest first",
  params: IdParams('Webhook'),
  querystring: DeliveriesQuery,
  response: { 200: DeliveryList, ...errorResponses(400, 404) },
};

/** Anyone's webhook: the account routes' handlers, with no owner to check. */
const anyone = () => null;

export function registerAdminWebhooks(app: App, { webhooks: ctx }: Services): void {
  app.delete(
    '/api/v1/admin/webhooks/:id',
    { config: access.admin, schema: deleteSchema },
    handleDelete(ctx, anyone),
  );
  app.post(
    '/api/v1/admin/webhooks/:id/enable',
    { config: access.admin, schema: enableSchema },
    handleEnable(ctx, anyone),
  );
  app.get(
    '/api/v1/admin/webhooks/:id/deliveries',
    { config: access.admin, schema: deliveriesSchema },
    handleDeliveries(ctx, anyone),
  );
}
