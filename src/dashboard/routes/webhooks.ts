import { Type } from 'typebox';
import { access, secret } from '../../http/access.ts';
import { rotationBody } from '../../http/routes/webhooks.ts';
import { RotateSecretBody } from '../../http/schemas/webhooks.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { rotateSecret, sendTestEvent } from '../../webhooks/developer.ts';
import {
  createWebhook,
  deleteWebhook,
  reenableWebhook,
  userWebhooks,
  webhookDeliveries,
} from '../../webhooks/service.ts';
import { Id } from '../schemas.ts';

/** The dashboard does not page: it shows the first hundred webhooks, and deliveries of each. */
const PAGE = { limit: 100, offset: 0 };

const WebhookUrl = Type.Object(
  { url: Type.String({ minLength: 1, maxLength: 2048 }) },
  { additionalProperties: false },
);

/** The signed-in user's webhooks, through the same service functions as the API. */
export function registerWebhooks(app: App, { webhooks }: Services): void {
  app.get('/dashboard/api/webhooks', { config: access.user }, async (request) => ({
    data: (await userWebhooks(webhooks, signedIn(request).user.id, PAGE)).rows,
  }));
  app.post(
    '/dashboard/api/webhooks',
    { config: secret(access.user), schema: { body: WebhookUrl } },
    async (request, reply) => {
      const userId = signedIn(request).user.id;
      return reply.code(201).send(await createWebhook(webhooks, { userId, url: request.body.url }));
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
      data: (await webhookDeliveries(webhooks, request.params.id, signedIn(request).user.id, PAGE)).rows,
    }),
  );
  app.post(
    '/dashboard/api/webhooks/:id/test',
    { config: access.user, schema: { params: Id } },
    async (request, reply) => {
      const delivery = await sendTestEvent(webhooks, request.params.id, signedIn(request).user.id);
      return reply.code(202).send({ delivery });
    },
  );
  app.post(
    '/dashboard/api/webhooks/:id/rotate-secret',
    {
      config: secret(access.user),
      schema: { params: Id, body: RotateSecretBody },
      preValidation: rotationBody,
    },
    async (request) => {
      return rotateSecret(
        webhooks,
        request.params.id,
        signedIn(request).user.id,
        request.body.overlap_seconds,
      );
    },
  );
}
