import { MAX_TEST_KEYS, PLAN_LIMITS, PLANS, TEST_KEY_RPM } from '../../domain/plans.ts';
import { access, secret } from '../../http/access.ts';
import { signedIn } from '../../http/session-auth.ts';
import type { App, Services } from '../../http/types.ts';
import { countSuspendedWebhooks } from '../../webhooks/service.ts';

/** The signed-in user, their CSRF token, their plan's limits and every plan's (for the upgrade table). */
export function registerMe(app: App, { db }: Services): void {
  app.get('/dashboard/api/me', { config: secret(access.user) }, async (request) => {
    const { user, csrfToken } = signedIn(request);
    return {
      user,
      csrf_token: csrfToken,
      suspended_webhooks: await countSuspendedWebhooks(db, user.id),
      plan: { ...PLAN_LIMITS[user.plan], test_rpm: TEST_KEY_RPM, max_test_keys: MAX_TEST_KEYS },
      plans: PLANS.map((name) => ({ name, ...PLAN_LIMITS[name] })),
    };
  });
}
