import { access, idempotent } from '../access.ts';
import { oneWebhookSchemas } from '../schemas/webhooks.ts';
import type { App, Services } from '../types.ts';
import { anyone, handleAttempts, handleResend } from './webhooks.ts';

const one = oneWebhookSchemas('admin');

export function registerAdminDeliveries(app: App, { webhooks: ctx }: Services): void {
  app.get(
    '/api/v1/admin/deliveries/:id/attempts',
    { config: access.admin, schema: one.attempts },
    handleAttempts(ctx, anyone),
  );
  app.post(
    '/api/v1/admin/deliveries/:id/resend',
    { config: idempotent(access.admin), schema: one.resend },
    handleResend(ctx, anyone),
  );
}
