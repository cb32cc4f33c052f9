import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  closeSession,
  findSession,
  openSession,
  readCookie,
  SESSION_COOKIE,
  type Session,
  SignInThrottle,
  sameToken,
  sessionCookie,
} from '../../dashboard/sessions.ts';
import { hashPassword, verifyPassword } from '../../domain/passwords.ts';
import { MAX_TEST_KEYS, PLAN_LIMITS, PLANS, TEST_KEY_RPM } from '../../domain/plans.ts';
import { usageSeries } from '../../infra/usage.ts';
import { AccountRuleError, createAccount, issueKey } from '../../services/accounts.ts';
import {
  getUser,
  listKeys,
  listUsers,
  passwordHashOf,
  revokeOwnKey,
  setUserPlan,
} from '../../store/accounts.ts';
import {
  createWebhook,
  deleteWebhook,
  deliveryAttempts,
  resendDelivery,
  userWebhooks,
  type WebhookContext,
  webhookDeliveries,
} from '../../webhooks/service.ts';
import { ApiError, errors } from '../errors.ts';
import { NewKeyBody, UsageWindow } from '../schemas/accounts.ts';
import { StringEnum } from '../schemas/common.ts';
import type { App, Services } from '../types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    session: Session | null;
  }
}

const Credentials = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
const Id = Type.Object({ id: Type.String({ format: 'uuid' }) });
const MIN_PASSWORD = 10;
const PAGE = { limit: 100, offset: 0 };

const signedIn = (request: FastifyRequest): Session => {
  if (!request.session) throw new ApiError('unauthorized', 'sign in first');
  return request.session;
};

/**
 * The dashboard's JSON API (/dashboard/api/*): session cookie auth, CSRF token on every state change,
 * throttled sign-ins with one message for every failure. It uses the same service functions as the
 * admin API, so the rules (plans, maxima, target vetting) are the same everywhere.
 */
export function registerDashboardApi(app: App, services: Services, webhooks: WebhookContext): void {
  const { db, now } = services;
  const throttle = new SignInThrottle();
  app.decorateRequest('session', null);

  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/dashboard/api/')) return;
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    request.session = token ? await findSession(db, token, now()) : null;
    if (request.method === 'GET' || request.method === 'HEAD') return;
    checkOrigin(request);
    if (request.session) {
      const sent = request.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !sameToken(sent, request.session.csrfToken)) {
        throw new ApiError('forbidden', 'missing or invalid CSRF token');
      }
    }
  });

  const begin = async (reply: FastifyReply, request: FastifyRequest, userId: string) => {
    const { token, csrfToken } = await openSession(db, userId, now());
    reply.header('set-cookie', sessionCookie(token, request.protocol === 'https'));
    return csrfToken;
  };

  app.post('/dashboard/api/signup', { schema: { body: Credentials } }, async (request, reply) => {
    const { email, password } = request.body;
    if (password.length < MIN_PASSWORD)
      throw errors.invalidBody(`password must have at least ${MIN_PASSWORD} characters`);
    const passwordHash = await hashPassword(password);
    try {
      const user = await createAccount(db, { email, plan: 'free', passwordHash });
      return reply.code(201).send({ user, csrf_token: await begin(reply, request, user.id) });
    } catch (error) {
      // Same wording whether or not the address is known: the form reveals no accounts.
      if (error instanceof AccountRuleError && error.kind === 'conflict') {
        throw errors.invalidBody('could not create an account with these details; if you have one, sign in');
      }
      throw error;
    }
  });

  app.post('/dashboard/api/signin', { schema: { body: Credentials } }, async (request, reply) => {
    const { email, password } = request.body;
    const keys = [`ip:${request.ip}`, `email:${email.toLowerCase()}`];
    const wait = throttle.waitMs(keys, now().getTime());
    if (wait > 0) {
      throw new ApiError('rate_limited', 'too many failed sign-ins; try again later', {
        'retry-after': String(Math.ceil(wait / 1000)),
      });
    }
    const found = await passwordHashOf(db, email);
    // Hash even for unknown addresses, so timing does not tell them apart.
    const ok = found?.hash
      ? await verifyPassword(password, found.hash)
      : (await hashPassword(password), false);
    if (!found || !ok) {
      throttle.fail(keys, now().getTime());
      throw new ApiError('unauthorized', 'invalid email or password');
    }
    throttle.clear(keys);
    return { user: await getUser(db, found.id), csrf_token: await begin(reply, request, found.id) };
  });

  app.post('/dashboard/api/signout', async (request, reply) => {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (token) await closeSession(db, token);
    reply.header('set-cookie', sessionCookie('', request.protocol === 'https', 0));
    return reply.code(204).send();
  });

  app.get('/dashboard/api/me', async (request) => {
    const { user, csrfToken } = signedIn(request);
    const limits = PLAN_LIMITS[user.plan];
    return {
      user,
      csrf_token: csrfToken,
      plan: { ...limits, test_rpm: TEST_KEY_RPM, max_test_keys: MAX_TEST_KEYS },
      plans: PLANS.map((name) => ({ name, ...PLAN_LIMITS[name] })),
    };
  });

  app.get('/dashboard/api/keys', async (request) => ({
    data: await listKeys(db, signedIn(request).user.id),
  }));

  app.post('/dashboard/api/keys', { schema: { body: NewKeyBody } }, async (request, reply) => {
    const issued = await issueKey(db, { userId: signedIn(request).user.id, ...request.body });
    return reply.code(201).send(issued);
  });

  app.post('/dashboard/api/keys/:id/revoke', { schema: { params: Id } }, async (request) => {
    const key = await revokeOwnKey(db, request.params.id, signedIn(request).user.id, now());
    if (!key) throw errors.keyNotFound(request.params.id);
    return { key };
  });

  app.get(
    '/dashboard/api/usage',
    {
      schema: {
        querystring: Type.Object({ window: { ...UsageWindow, default: '24h' } as typeof UsageWindow }),
      },
    },
    async (request) => {
      const keys = await listKeys(db, signedIn(request).user.id);
      await services.usage.flush();
      const series = await Promise.all(
        keys.map((key) => usageSeries(db, key.id, request.query.window, now())),
      );
      return { window: request.query.window, data: keys.map((key, i) => ({ key, usage: series[i] })) };
    },
  );

  app.get('/dashboard/api/webhooks', async (request) => ({
    data: await userWebhooks(webhooks, signedIn(request).user.id, PAGE),
  }));

  app.post(
    '/dashboard/api/webhooks',
    {
      schema: {
        body: Type.Object(
          { url: Type.String({ minLength: 1, maxLength: 2048 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const created = await createWebhook(webhooks, {
        userId: signedIn(request).user.id,
        url: request.body.url,
      });
      return reply.code(201).send(created);
    },
  );

  app.delete('/dashboard/api/webhooks/:id', { schema: { params: Id } }, async (request) => ({
    webhook: await deleteWebhook(webhooks, request.params.id, signedIn(request).user.id),
  }));

  app.get('/dashboard/api/webhooks/:id/deliveries', { schema: { params: Id } }, async (request) => ({
    data: await webhookDeliveries(webhooks, request.params.id, signedIn(request).user.id, PAGE),
  }));

  app.get('/dashboard/api/deliveries/:id/attempts', { schema: { params: Id } }, async (request) => ({
    data: await deliveryAttempts(webhooks, request.params.id, signedIn(request).user.id),
  }));

  app.post('/dashboard/api/deliveries/:id/resend', { schema: { params: Id } }, async (request) => ({
    delivery: await resendDelivery(webhooks, request.params.id, signedIn(request).user.id),
  }));

  app.get('/dashboard/api/admin/users', async (request) => {
    if (!signedIn(request).user.is_admin) throw errors.adminOnly();
    return { data: await listUsers(db, 500, 0) };
  });

  app.patch(
    '/dashboard/api/admin/users/:id',
    {
      schema: { params: Id, body: Type.Object({ plan: StringEnum(PLANS) }, { additionalProperties: false }) },
    },
    async (request) => {
      if (!signedIn(request).user.is_admin) throw errors.adminOnly();
      const user = await setUserPlan(db, request.params.id, request.body.plan);
      if (!user) throw errors.userNotFound(request.params.id);
      return { user };
    },
  );
}

/** A cross-site form or fetch carries a foreign Origin; same-site requests carry ours or none. */
function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let same = false;
  try {
    same = new URL(origin).origin === new URL(`${request.protocol}://${request.headers.host ?? ''}`).origin;
  } catch {
    same = false;
  }
  if (!same) throw new ApiError('forbidden', 'cross-site request refused');
}
