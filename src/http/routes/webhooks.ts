import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { KEYSETS } from '../../store/keyset.ts';
import { rotateSecret, sendTestEvent } from '../../webhooks/developer.ts';
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
import { access, idempotent, secret } from '../access.ts';
import { errors } from '../errors.ts';
import { pageStart, rowsBody } from '../paging.ts';
import { errorResponses, IdempotencyHeaders, Query } from '../schemas/common.ts';
import {
  NewWebhookResponse,
  oneWebhookSchemas,
  PageQuery,
  WebhookBody,
  WebhookList,
} from '../schemas/webhooks.ts';
import type { App, Handler, Services } from '../types.ts';

const listSchema = {
  tags: ['webhooks'],
  summary: 'List your webhooks',
  querystring: PageQuery,
  response: { 200: WebhookList },
};

const createSchema = {
  tags: ['webhooks'],
  summary: 'Register a webhook; the signing secret is in `secret`, once',
  querystring: Query({}),
  headers: IdempotencyHeaders,
  body: WebhookBody,
  response: { 201: NewWebhookResponse, ...errorResponses(400, 403) },
};

const one = oneWebhookSchemas('webhooks');
type One = typeof one;

/**
 * Webhooks (docs/API.md "Webhooks"): these routes act on the key owner's webhooks; the admin routes
 * (admin-webhooks.ts, admin-deliveries.ts) share their handlers to act on anyone's.
 */
export function registerWebhooks(app: App, { webhooks: ctx }: Services): void {
  app.get('/api/v1/webhooks', { config: access.read, schema: listSchema }, (request, reply) =>
    webhooksOf(ctx, keyOwner(request), request, reply),
  );
  app.post(
    '/api/v1/webhooks',
    { config: idempotent(secret(access.write)), schema: createSchema },
    async (request, reply) => {
      const created = await createWebhook(ctx, { userId: keyOwner(request), url: request.body.url });
      return reply.code(201).send(created);
    },
  );
  app.delete(
    '/api/v1/webhooks/:id',
    { config: access.write, schema: one.delete },
    handleDelete(ctx, keyOwner),
  );
  app.post(
    '/api/v1/webhooks/:id/enable',
    { config: access.write, schema: one.enable },
    handleEnable(ctx, keyOwner),
  );
  app.post(
    '/api/v1/webhooks/:id/test',
    { config: idempotent(access.write), schema: one.test },
    handleTest(ctx, keyOwner),
  );
  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    { config: idempotent(secret(access.write)), schema: one.rotate, preValidation: rotationBody },
    handleRotate(ctx, keyOwner),
  );
  app.get(
    '/api/v1/webhooks/:id/deliveries',
    { config: access.read, schema: one.deliveries },
    handleDeliveries(ctx, keyOwner),
  );
  app.get(
    '/api/v1/webhooks/deliveries/:id/attempts',
    { config: access.read, schema: one.attempts },
    handleAttempts(ctx, keyOwner),
  );
  app.post(
    '/api/v1/webhooks/deliveries/:id/resend',
    { config: idempotent(access.write), schema: one.resend },
    handleResend(ctx, keyOwner),
  );
}

/**
 * The rotation's optional body: none is `{}`, so `curl -X POST` works. `overlap_seconds` must be a JSON
 * integer as sent: the validator coerces types, and `null` or `false` would become 0 — an overlap the
 * caller never asked for, dropping the old secret at once.
 */
export function rotationBody(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
  request.body ??= {};
  const body = request.body as Record<string, unknown>;
  const overlap = typeof body === 'object' && body !== null ? body.overlap_seconds : undefined;
  if (overlap !== undefined && !Number.isInteger(overlap)) {
    return done(errors.invalidBody('field "overlap_seconds" must be an integer'));
  }
  done();
}

/** The user a keyed request acts for; account routes only ever touch this user's webhooks. */
function keyOwner(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) throw errors.missingKey();
  return principal.user_id;
}

/** Whose webhooks a request may touch; null for an admin acting on anyone's. */
export type Owner = (request: FastifyRequest) => string | null;

/** Anyone's webhook or delivery: the admin routes use the account routes' handlers with no owner to check. */
export const anyone: Owner = () => null;

/** A page of a user's webhooks, for the key owner's list and the admin's list of a user's. */
export async function webhooksOf(
  ctx: WebhookContext,
  userId: string,
  request: FastifyRequest<{ Querystring: Static<typeof PageQuery> }>,
  reply: FastifyReply,
) {
  const page = { ...request.query, after: pageStart(request, KEYSETS.webhooks) };
  return rowsBody(request, reply, KEYSETS.webhooks, await userWebhooks(ctx, userId, page));
}

export function handleDelete(ctx: WebhookContext, owner: Owner): Handler<One['delete']> {
  return async (request) => ({ webhook: await deleteWebhook(ctx, request.params.id, owner(request)) });
}

export function handleEnable(ctx: WebhookContext, owner: Owner): Handler<One['enable']> {
  return async (request) => ({ webhook: await reenableWebhook(ctx, request.params.id, owner(request)) });
}

export function handleDeliveries(ctx: WebhookContext, owner: Owner): Handler<One['deliveries']> {
  return async (request, reply) => {
    const page = { ...request.query, after: pageStart(request, KEYSETS.deliveries) };
    const deliveries = await webhookDeliveries(ctx, request.params.id, owner(request), page);
    return rowsBody(request, reply, KEYSETS.deliveries, deliveries);
  };
}

export function handleAttempts(ctx: WebhookContext, owner: Owner): Handler<One['attempts']> {
  return async (request, reply) => {
    const page = { ...request.query, after: pageStart(request, KEYSETS.attempts) };
    const attempts = await deliveryAttempts(ctx, request.params.id, owner(request), page);
    return rowsBody(request, reply, KEYSETS.attempts, attempts);
  };
}

export function handleResend(ctx: WebhookContext, owner: Owner): Handler<One['resend']> {
  return async (request, reply) =>
    reply.code(202).send({ delivery: await resendDelivery(ctx, request.params.id, owner(request)) });
}

export function handleTest(ctx: WebhookContext, owner: Owner): Handler<One['test']> {
  return async (request, reply) =>
    reply.code(202).send({ delivery: await sendTestEvent(ctx, request.params.id, owner(request)) });
}

export function handleRotate(ctx: WebhookContext, owner: Owner): Handler<One['rotate']> {
  return async (request) => {
    return rotateSecret(ctx, request.params.id, owner(request), request.body?.overlap_seconds);
  };
}
