import { access } from '../access.ts';
import { oneWebhookSchemas } from '../schemas/webhooks.ts';
import type { App, Services } from '../types.ts';
import { anyone, handleDelete, handleDeliveries, handleEnable } from './webhooks.ts';

const one = oneWebhookSchemas('admin');

export function registerAdminWebhooks(app: App, { webhooks: ctx }: Services): void {
  app.delete(
    '/api/v1/admin/webhooks/:id',
    { config: access.admin, schema: one.delete },
    handleDelete(ctx, anyone),
  );
  app.post(
    '/api/v1/admin/webhooks/:id/enable',
    { config: access.admin, schema: one.enable },
    handleEnable(ctx, anyone),
  );
  app.get(
    '/api/v1/admin/webhooks/:id/deliveries',
    { config: access.admin, schema: one.deliveries },
    handleDeliveries(ctx, anyone),
  );
}
