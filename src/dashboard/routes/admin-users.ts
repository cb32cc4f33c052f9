import { Type } from 'typebox';
import { PLANS } from '../../domain/plans.ts';
import { access } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import { StringEnum } from '../../http/schemas/common.ts';
import type { App, Services } from '../../http/types.ts';
import { listUsers, setUserPlan } from '../../store/accounts.ts';
import { Id } from '../schemas.ts';

const PlanChange = Type.Object({ plan: StringEnum(PLANS) }, { additionalProperties: false });

/** For admin users' sessions: every user, and their plans. */
export function registerAdminUsers(app: App, { db }: Services): void {
  app.get('/dashboard/api/admin/users', { config: access.adminUser }, async () => ({
    data: (await listUsers(db, { limit: 500, offset: 0 })).rows,
  }));
  app.patch(
    '/dashboard/api/admin/users/:id',
    { config: access.adminUser, schema: { params: Id, body: PlanChange } },
    async (request) => {
      const user = await setUserPlan(db, request.params.id, request.body.plan);
      if (!user) throw errors.userNotFound(request.params.id);
      return { user };
    },
  );
}
