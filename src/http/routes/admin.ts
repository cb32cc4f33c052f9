import { Type } from 'typebox';
import { hashPassword } from '../../domain/passwords.ts';
import { createAccount, issueKey } from '../../services/accounts.ts';
import { revokeKey, setUserPlan } from '../../store/accounts.ts';
import { access, secret } from '../access.ts';
import { errors } from '../errors.ts';
import {
  KeyResponse,
  NewKeyBody,
  NewKeyResponse,
  NewUserBody,
  PlanBody,
  UserResponse,
} from '../schemas/accounts.ts';
import { errorResponses, Query } from '../schemas/common.ts';
import type { App, Services } from '../types.ts';

const Id = (what: string) => Type.Object({ id: Type.String({ format: 'uuid', description: `${what} id` }) });
const NoQuery = Query({});

/** Admin API: admin-scope keys of admin users. */
export function registerAdmin(app: App, { db, now }: Services): void {
  app.post(
    '/api/v1/admin/users',
    {
      config: access.admin,
      schema: {
        tags: ['admin'],
        summary: 'Create a user',
        querystring: NoQuery,
        body: NewUserBody,
        response: { 201: UserResponse, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const user = await createAccount(db, {
        email: body.email,
        plan: body.plan ?? 'free',
        isAdmin: body.admin ?? false,
        passwordHash: body.password ? await hashPassword(body.password) : null,
      });
      return reply.code(201).send({ user });
    },
  );

  app.patch(
    '/api/v1/admin/users/:id',
    {
      config: access.admin,
      schema: {
        tags: ['admin'],
        summary: "Change a user's plan",
        params: Id('User'),
        querystring: NoQuery,
        body: PlanBody,
        response: { 200: UserResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const user = await setUserPlan(db, request.params.id, request.body.plan);
      if (!user) throw errors.userNotFound(request.params.id);
      return { user };
    },
  );

  app.post(
    '/api/v1/admin/users/:id/keys',
    {
      config: secret(access.admin),
      schema: {
        tags: ['admin'],
        summary: 'Create an API key for a user; the raw key is in `secret`, once',
        params: Id('User'),
        querystring: NoQuery,
        body: NewKeyBody,
        response: { 201: NewKeyResponse, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const issued = await issueKey(db, { userId: request.params.id, ...request.body });
      return reply.code(201).send(issued);
    },
  );

  app.delete(
    '/api/v1/admin/keys/:id',
    {
      config: access.admin,
      schema: {
        tags: ['admin'],
        summary: 'Revoke a key; requests with it get 401 at once',
        params: Id('Key'),
        querystring: NoQuery,
        response: { 200: KeyResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const key = await revokeKey(db, request.params.id, now());
      if (!key) throw errors.keyNotFound(request.params.id);
      return { key };
    },
  );
}
