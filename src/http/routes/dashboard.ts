import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  closeSession,
  openSession,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from '../../dashboard/sessions.ts';
import { AuthThrottle } from '../../dashboard/throttle.ts';
import { hashPassword, verifyPassword } from '../../domain/passwords.ts';
import { MAX_TEST_KEYS, PLAN_LIMITS, PLANS, TEST_KEY_RPM } from '../../domain/plans.ts';
import { issueKey, signUpAccount } from '../../services/accounts.ts';
import {
  getUser,
  listKeys,
  listUsers,
  passwordHashOf,
  revokeOwnKey,
  setUserPlan,
} from '../../store/accounts.ts';
import { usageSeries } from '../../store/usage.ts';
import {
  countSuspendedWebhooks,
  createWebhook,
  deleteWebhook,
  deliveryAttempts,
  reenableWebhook,
  resendDelivery,
  userWebhooks,
  type WebhookContext,
  webhookDeliveries,
} from '../../webhooks/service.ts';
import { access, secret } from '../access.ts';
import { ApiError, errors } from '../errors.ts';
import { NewKeyBody, UsageWindow } from '../schemas/accounts.ts';
import { StringEnum } from '../schemas/common.ts';
import { signedIn } from '../session-auth.ts';
import type { App, Services } from '../types.ts';

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

/**
 * The dashboard's JSON API (/dashboard/api/*): each route declares the session it needs (access.ts
 * checks it, the Origin and the CSRF token of every state change), throttled sign-ins with one message for every failure. It uses the same service functions as the
 * admin API, so the rules (plans, maxima, target vetting) are the same everywhere.
 */
export function registerDashboardApi(app: App, services: Services, webhooks: WebhookContext): void {
  const { db, now } = services;
  const throttle = new AuthThrottle(services.limiter, now);
  const begin = async (reply: FastifyReply, request: FastifyRequest, userId: string) => {
    const { token, csrfToken } = await openSession(db, userId, now());
    reply.header('set-cookie', sessionCookie(token, request.protocol === 'https'));
    return csrfToken;
  };

  app.post(
    '/dashboard/api/signup',
    { config: secret(access.anonymous), schema: { body: Credentials } },
    async (request, reply) => {
      const { email, password } = request.body;
      if (password.length < MIN_PASSWORD)
        throw errors.invalidBody(`password must have at least ${MIN_PASSWORD} characters`);
      const wait = await throttle.signUp(request.ip);
      if (wait) throw errors.signUpThrottled(wait);
      // The same answer, the same work (a hash, an insert that may do nothing) and no session whether or
      // not the email is taken: sign-up reveals no accounts; the client signs in next. Residual: that
      // sign-in still tells a taken email (the new password fails), at the pace the sign-in throttles
      // allow; closing it needs email verification before an account exists.
      await signUpAccount(db, { email, passwordHash: await hashPassword(password) });
      return reply.code(202).send({ message: 'sign-up received: sign in with this email and password' });
    },
  );

  app.post(
    '/dashboard/api/signin',
    { config: secret(access.anonymous), schema: { body: Credentials } },
    async (request, reply) => {
      const { email, password } = request.body;
      const wait = await throttle.signIn(request.ip, email);
      if (wait) throw errors.signInThrottled(wait);
      const found = await passwordHashOf(db, email);
      // Hash even for unknown addresses, so timing does not tell them apart.
      const ok = found?.hash
        ? await verifyPassword(password, found.hash)
        : await hashPassword(password).then(() => false);
      if (!found || !ok) throw new ApiError('unauthorized', 'invalid email or password');
      await throttle.signedIn(request.ip, email);
      return { user: await getUser(db, found.id), csrf_token: await begin(reply, request, found.id) };
    },
  );

  app.post('/dashboard/api/signout', { config: access.anySession }, async (request, reply) => {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (token) await closeSession(db, token);
    reply.header('set-cookie', sessionCookie('', request.protocol === 'https', 0));
    return reply.code(204).send();
  });

  app.get('/dashboard/api/me', { config: secret(access.user) }, async (request) => {
    const { user, csrfToken } = signedIn(request);
    const limits = PLAN_LIMITS[user.plan];
    return {
      user,
      csrf_token: csrfToken,
      suspended_webhooks: await countSuspendedWebhooks(db, user.id),
      plan: { ...limits, test_rpm: TEST_KEY_RPM, max_test_keys: MAX_TEST_KEYS },
      plans: PLANS.map((name) => ({ name, ...PLAN_LIMITS[name] })),
    };
  });

  app.get('/dashboard/api/keys', { config: access.user }, async (request) => ({
    data: await listKeys(db, signedIn(request).user.id),
  }));

  app.post(
    '/dashboard/api/keys',
    { config: secret(access.user), schema: { body: NewKeyBody } },
    async (request, reply) => {
      const issued = await issueKey(db, { userId: signedIn(request).user.id, ...request.body });
      return reply.code(201).send(issued);
    },
  );

  app.post(
    '/dashboard/api/keys/:id/revoke',
    { config: access.user, schema: { params: Id } },
    async (request) => {
      const key = await revokeOwnKey(db, request.params.id, signedIn(request).user.id, now());
      if (!key) throw errors.keyNotFound(request.params.id);
      return { key };
    },
  );

  app.get(
    '/dashboard/api/usage',
    {
      config: access.user,
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

  app.get('/dashboard/api/webhooks', { config: access.user }, async (request) => ({
    data: await userWebhooks(webhooks, signedIn(request).user.id, PAGE),
  }));

  app.post(
    '/dashboard/api/webhooks',
    {
      config: secret(access.user),
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

  app.delete(
    '/dashboard/api/webhooks/:id',
    { config: access.user, schema: { params: Id } },
    async (request) => ({
      webhook: await deleteWebhook(webhooks, request.params.id, signedIn(request).user.id),
    }),
  );

  app.post(
    '/dashboard/api/webhooks/:id/enable',
    { config: access.user, schema: { params: Id } },
    async (request) => ({
      webhook: await reenableWebhook(webhooks, request.params.id, signedIn(request).user.id),
    }),
  );

  app.get(
    '/dashboard/api/webhooks/:id/deliveries',
    { config: access.user, schema: { params: Id } },
    async (request) => ({
      data: await webhookDeliveries(webhooks, request.params.id, signedIn(request).user.id, PAGE),
    }),
  );

  app.get(
    '/dashboard/api/deliveries/:id/attempts',
    { config: access.user, schema: { params: Id } },
    async (request) => ({
      data: await deliveryAttempts(webhooks, request.params.id, signedIn(request).user.id),
    }),
  );

  app.post(
    '/dashboard/api/deliveries/:id/resend',
    { config: access.user, schema: { params: Id } },
    async (request) => ({
      delivery: await resendDelivery(webhooks, request.params.id, signedIn(request).user.id),
    }),
  );

  app.get('/dashboard/api/admin/users', { config: access.adminUser }, async () => {
    return { data: await listUsers(db, 500, 0) };
  });

  app.patch(
    '/dashboard/api/admin/users/:id',
    {
      config: access.adminUser,
      schema: { params: Id, body: Type.Object({ plan: StringEnum(PLANS) }, { additionalProperties: false }) },
    },
    async (request) => {
      const user = await setUserPlan(db, request.params.id, request.body.plan);
      if (!user) throw errors.userNotFound(request.params.id);
      return { user };
    },
  );
}
