import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  createWebhook,
  deleteWebhook,
  deliveryAttempts,
  resendDelivery,
  userWebhooks,
  type WebhookContext,
  webhookDeliveries,
} from '../../webhooks/service.ts';
import { type HostResolver, TargetPolicy } from '../../webhooks/target.ts';
import { access } from '../access.ts';
import { errors } from '../errors.ts';
import { errorResponses, Query } from '../schemas/common.ts';
import {
  AttemptList,
  DeliveriesQuery,
  DeliveryList,
  DeliveryResponse,
  NewWebhookResponse,
  PageQuery,
  WebhookBody,
  WebhookList,
  WebhookResponse,
} from '../schemas/webhooks.ts';
import type { App, Services } from '../types.ts';

const Id = (what: string) => Type.Object({ id: Type.String({ format: 'uuid', description: `${what} id` }) });
const NoQuery = Query({});

/** The user a keyed request acts for; account routes only ever touch this user's webhooks. */
function owner(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) throw errors.missingKey();
  return principal.user_id;
}

const page = <T>(data: T[], q: { limit: number; offset: number }) => ({
  data,
  pagination: { limit: q.limit, offset: q.offset, count: data.length },
});

/**
 * Webhooks (SPEC.md Events, DESIGN §8–9): the account routes act on the key owner's webhooks, the admin
 * routes on anyone's; both go through the same service functions as the dashboard.
 */
export function registerWebhooks(app: App, services: Services, deps: { resolve: HostResolver }): void {
  const ctx: WebhookContext = {
    db: services.db,
    secretKey: services.config.secretKey,
    policy: new TargetPolicy(services.config.webhookAllowCidrs),
    resolve: deps.resolve,
    now: services.now,
  };
  registerAccountRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
}

function registerAccountRoutes(app: App, ctx: WebhookContext): void {
  const tags = ['webhooks'];
  app.get(
    '/api/v1/webhooks',
    {
      config: access.read,
      schema: { tags, summary: 'List your webhooks', querystring: PageQuery, response: { 200: WebhookList } },
    },
    async (request) => page(await userWebhooks(ctx, owner(request), request.query), request.query),
  );

  app.post(
    '/api/v1/webhooks',
    {
      config: access.write,
      schema: {
        tags,
        summary: 'Register a webhook; the signing secret is in `secret`, once',
        querystring: NoQuery,
        body: WebhookBody,
        response: { 201: NewWebhookResponse, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      const created = await createWebhook(ctx, { userId: owner(request), url: request.body.url });
      return reply.code(201).send(created);
    },
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      config: access.write,
      schema: {
        tags,
        summary: 'Delete a webhook (its deliveries stay listed); rotate a secret by deleting and creating',
        params: Id('Webhook'),
        querystring: NoQuery,
        response: { 200: WebhookResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({ webhook: await deleteWebhook(ctx, request.params.id, owner(request)) }),
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      config: access.read,
      schema: {
        tags,
        summary: "A webhook's deliveries, newest first",
        params: Id('Webhook'),
        querystring: DeliveriesQuery,
        response: { 200: DeliveryList, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      page(await webhookDeliveries(ctx, request.params.id, owner(request), request.query), request.query),
  );

  app.get(
    '/api/v1/webhooks/deliveries/:id/attempts',
    {
      config: access.read,
      schema: {
        tags,
        summary: "A delivery's attempts, every series, in order",
        params: Id('Delivery'),
        querystring: NoQuery,
        response: { 200: AttemptList, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({ data: await deliveryAttempts(ctx, request.params.id, owner(request)) }),
  );

  app.post(
    '/api/v1/webhooks/deliveries/:id/resend',
    {
      config: access.write,
      schema: {
        tags,
        summary: 'Resend a delivery: a new attempt series with the same delivery id, due now',
        params: Id('Delivery'),
        querystring: NoQuery,
        response: { 202: DeliveryResponse, ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ delivery: await resendDelivery(ctx, request.params.id, owner(request)) }),
  );
}

function registerAdminRoutes(app: App, ctx: WebhookContext): void {
  const tags = ['admin'];
  app.post(
    '/api/v1/admin/users/:id/webhooks',
    {
      config: access.admin,
      schema: {
        tags,
        summary: 'Register a webhook for a user; the signing secret is in `secret`, once',
        params: Id('User'),
        querystring: NoQuery,
        body: WebhookBody,
        response: { 201: NewWebhookResponse, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const created = await createWebhook(ctx, { userId: request.params.id, url: request.body.url });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/api/v1/admin/users/:id/webhooks',
    {
      config: access.admin,
      schema: {
        tags,
        summary: "A user's active webhooks",
        params: Id('User'),
        querystring: PageQuery,
        response: { 200: WebhookList, ...errorResponses(400) },
      },
    },
    async (request) => page(await userWebhooks(ctx, request.params.id, request.query), request.query),
  );

  app.delete(
    '/api/v1/admin/webhooks/:id',
    {
      config: access.admin,
      schema: {
        tags,
        summary: 'Delete a webhook (its deliveries stay listed)',
        params: Id('Webhook'),
        querystring: NoQuery,
        response: { 200: WebhookResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({ webhook: await deleteWebhook(ctx, request.params.id, null) }),
  );

  app.get(
    '/api/v1/admin/webhooks/:id/deliveries',
    {
      config: access.admin,
      schema: {
        tags,
        summary: "A webhook's deliveries, newest first",
        params: Id('Webhook'),
        querystring: DeliveriesQuery,
        response: { 200: DeliveryList, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      page(await webhookDeliveries(ctx, request.params.id, null, request.query), request.query),
  );

  app.get(
    '/api/v1/admin/deliveries/:id/attempts',
    {
      config: access.admin,
      schema: {
        tags,
        summary: "A delivery's attempts, every series, in order",
        params: Id('Delivery'),
        querystring: NoQuery,
        response: { 200: AttemptList, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({ data: await deliveryAttempts(ctx, request.params.id, null) }),
  );

  app.post(
    '/api/v1/admin/deliveries/:id/resend',
    {
      config: access.admin,
      schema: {
        tags,
        summary: 'Resend a delivery: a new attempt series with the same delivery id, due now',
        params: Id('Delivery'),
        querystring: NoQuery,
        response: { 202: DeliveryResponse, ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ delivery: await resendDelivery(ctx, request.params.id, null) }),
  );
}
