import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  createWebhook,
  deleteWebhook,
  deliveryAttempts,
  reenableWebhook,
  resendDelivery,
  userWebhooks,
  type WebhookContext,
  webhookDeliveries,
} from '../../webhooks/service.ts';
import { type HostResolver, TargetPolicy } from '../../webhooks/target.ts';
import { access, secret } from '../access.ts';
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
 * Webhooks (README "Webhooks"): the account routes act on the key owner's webhooks, the admin
 * routes on anyone's; both go through the same service functions as the dashboard.
 */
/** The webhook service context of an app: its database, secret key, target policy and DNS. */
export function webhookContext(services: Services, resolve: HostResolver): WebhookContext {
  return {
    db: services.db,
    secretKey: services.config.secretKey,
    policy: new TargetPolicy(services.config.webhookAllowCidrs),
    resolve,
    now: services.now,
  };
}

export function registerWebhooks(app: App, ctx: WebhookContext): void {
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
      config: secret(access.write),
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

  registerWebhookOperations(app, ctx, {
    tags,
    webhook: '/api/v1/webhooks/:id',
    delivery: '/api/v1/webhooks/deliveries/:id',
    read: access.read,
    write: access.write,
    owner,
    deleteNote: '; rotate a secret by deleting and creating',
  });
}

function registerAdminRoutes(app: App, ctx: WebhookContext): void {
  const tags = ['admin'];
  app.post(
    '/api/v1/admin/users/:id/webhooks',
    {
      config: secret(access.admin),
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

  registerWebhookOperations(app, ctx, {
    tags,
    webhook: '/api/v1/admin/webhooks/:id',
    delivery: '/api/v1/admin/deliveries/:id',
    read: access.admin,
    write: access.admin,
    owner: () => null,
    deleteNote: '',
  });
}

interface OperationRoutes {
  tags: string[];
  /** `…/:id` of one webhook and of one delivery. */
  webhook: string;
  delivery: string;
  read: FastifyContextConfig;
  write: FastifyContextConfig;
  /** Whose webhooks the request may touch; null for an admin acting on anyone's. */
  owner: (request: FastifyRequest) => string | null;
  deleteNote: string;
}

/** Delete, re-enable, deliveries, attempts and resend: the same operations for the account and the admin API. */
function registerWebhookOperations(app: App, ctx: WebhookContext, r: OperationRoutes): void {
  const { tags } = r;
  app.delete(
    r.webhook,
    {
      config: r.write,
      schema: {
        tags,
        summary: `Delete a webhook (its deliveries stay listed)${r.deleteNote}`,
        params: Id('Webhook'),
        querystring: NoQuery,
        response: { 200: WebhookResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({ webhook: await deleteWebhook(ctx, request.params.id, r.owner(request)) }),
  );

  app.post(
    `${r.webhook}/enable`,
    {
      config: r.write,
      schema: {
        tags,
        summary:
          'Re-enable a suspended or backed-off webhook: its failure streak is cleared and its waiting deliveries are due now',
        params: Id('Webhook'),
        querystring: NoQuery,
        response: { 200: WebhookResponse, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => ({ webhook: await reenableWebhook(ctx, request.params.id, r.owner(request)) }),
  );

  app.get(
    `${r.webhook}/deliveries`,
    {
      config: r.read,
      schema: {
        tags,
        summary: "A webhook's deliveries, newest first",
        params: Id('Webhook'),
        querystring: DeliveriesQuery,
        response: { 200: DeliveryList, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      page(await webhookDeliveries(ctx, request.params.id, r.owner(request), request.query), request.query),
  );

  app.get(
    `${r.delivery}/attempts`,
    {
      config: r.read,
      schema: {
        tags,
        summary: "A delivery's attempts, every series, in order",
        params: Id('Delivery'),
        querystring: NoQuery,
        response: { 200: AttemptList, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({ data: await deliveryAttempts(ctx, request.params.id, r.owner(request)) }),
  );

  app.post(
    `${r.delivery}/resend`,
    {
      config: r.write,
      schema: {
        tags,
        summary: 'Resend a delivery: a new attempt series with the same delivery id, due now',
        params: Id('Delivery'),
        querystring: NoQuery,
        response: { 202: DeliveryResponse, ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ delivery: await resendDelivery(ctx, request.params.id, r.owner(request)) }),
  );
}
