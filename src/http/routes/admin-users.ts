import { hashPassword } from '../../domain/passwords.ts';
import { createAccount, issueKey } from '../../services/accounts.ts';
import { getUser, listKeyPage, listUsers, setUserPlan } from '../../store/accounts.ts';
import { KEYSETS } from '../../store/keyset.ts';
import { createWebhook } from '../../webhooks/service.ts';
import { access, idempotent, secret } from '../access.ts';
import { errors } from '../errors.ts';
import { pageStart, rowsBody } from '../paging.ts';
import {
  KeyList,
  NewKeyBody,
  NewKeyResponse,
  NewUserBody,
  PlanBody,
  UserList,
  UserQuery,
  UserResponse,
} from '../schemas/accounts.ts';
import { errorResponses, IdempotencyHeaders, IdParams, Query } from '../schemas/common.ts';
import { NewWebhookResponse, PageQuery, WebhookBody, WebhookList } from '../schemas/webhooks.ts';
import type { App, Handler, Services } from '../types.ts';
import { webhooksOf } from './webhooks.ts';

const listSchema = {
  tags: ['admin'],
  summary: 'Users, newest first; search by email part and plan',
  querystring: UserQuery,
  response: { 200: UserList, ...errorResponses(400) },
};

const createUserSchema = {
  tags: ['admin'],
  summary: 'Create a user',
  querystring: Query({}),
  headers: IdempotencyHeaders,
  body: NewUserBody,
  response: { 201: UserResponse, ...errorResponses(400, 409) },
};

const planSchema = {
  tags: ['admin'],
  summary: "Change a user's plan",
  params: IdParams('User'),
  querystring: Query({}),
  body: PlanBody,
  response: { 200: UserResponse, ...errorResponses(400, 404) },
};

const createKeySchema = {
  tags: ['admin'],
  summary: 'Create an API key for a user; the raw key is in `secret`, once',
  params: IdParams('User'),
  querystring: Query({}),
  headers: IdempotencyHeaders,
  body: NewKeyBody,
  response: { 201: NewKeyResponse, ...errorResponses(400, 404) },
};

const keysSchema = {
  tags: ['admin'],
  summary: "A user's API keys, revoked ones included, oldest first; never their secrets",
  description:
    'The key records (id, name, mode, scopes, display prefix, last use, revocation). Only a hash of a raw key is stored: it was shown once, when the key was created.',
  params: IdParams('User'),
  querystring: PageQuery,
  response: { 200: KeyList, ...errorResponses(400, 404) },
};

const createWebhookSchema = {
  tags: ['admin'],
  summary: 'Register a webhook for a user; the signing secret is in `secret`, once',
  params: IdParams('User'),
  querystring: Query({}),
  headers: IdempotencyHeaders,
  body: WebhookBody,
  response: { 201: NewWebhookResponse, ...errorResponses(400, 403, 404) },
};

const webhooksSchema = {
  tags: ['admin'],
  summary: "A user's active webhooks",
  params: IdParams('User'),
  querystring: PageQuery,
  response: { 200: WebhookList, ...errorResponses(400, 404) },
};

/** Admin API on users: admin-scope keys of admin users. */
export function registerAdminUsers(app: App, services: Services): void {
  app.get('/api/v1/admin/users', { config: access.admin, schema: listSchema }, async (request, reply) => {
    const filter = { ...request.query, after: pageStart(request, KEYSETS.users) };
    return rowsBody(request, reply, KEYSETS.users, await listUsers(services.db, filter));
  });
  app.post(
    '/api/v1/admin/users',
    { config: idempotent(access.admin), schema: createUserSchema },
    createUser(services),
  );
  app.patch('/api/v1/admin/users/:id', { config: access.admin, schema: planSchema }, changePlan(services));
  app.post(
    '/api/v1/admin/users/:id/keys',
    { config: idempotent(secret(access.admin)), schema: createKeySchema },
    async (request, reply) => {
      const issued = await issueKey(services.db, { userId: request.params.id, ...request.body });
      return reply.code(201).send(issued);
    },
  );
  app.get('/api/v1/admin/users/:id/keys', { config: access.admin, schema: keysSchema }, listKeysOf(services));
}

function listKeysOf({ db }: Services): Handler<typeof keysSchema> {
  return async (request, reply) => {
    const page = { ...request.query, after: pageStart(request, KEYSETS.keys) };
    const keys = await listKeyPage(db, request.params.id, page);
    // Only an empty page can hide an unknown user: a key's user exists (foreign key).
    if (keys.rows.length === 0 && !(await getUser(db, request.params.id))) {
      throw errors.userNotFound(request.params.id);
    }
    return rowsBody(request, reply, KEYSETS.keys, keys);
  };
}

/**
 * A user's webhooks, as an admin sees them. Registered apart from the other user routes only to keep
 * their place in openapi.json, after the account's webhook routes.
 */
export function registerAdminUserWebhooks(app: App, { webhooks }: Services): void {
  app.post(
    '/api/v1/admin/users/:id/webhooks',
    { config: idempotent(secret(access.admin)), schema: createWebhookSchema },
    async (request, reply) => {
      const created = await createWebhook(webhooks, { userId: request.params.id, url: request.body.url });
      return reply.code(201).send(created);
    },
  );
  app.get(
    '/api/v1/admin/users/:id/webhooks',
    { config: access.admin, schema: webhooksSchema },
    (request, reply) => webhooksOf(webhooks, request.params.id, request, reply),
  );
}

function createUser({ db }: Services): Handler<typeof createUserSchema> {
  return async (request, reply) => {
    const body = request.body;
    const user = await createAccount(db, {
      email: body.email,
      plan: body.plan ?? 'free',
      isAdmin: body.admin ?? false,
      passwordHash: body.password ? await hashPassword(body.password) : null,
    });
    return reply.code(201).send({ user });
  };
}

function changePlan({ db }: Services): Handler<typeof planSchema> {
  return async (request) => {
    const user = await setUserPlan(db, request.params.id, request.body.plan);
    if (!user) throw errors.userNotFound(request.params.id);
    return { user };
  };
}
