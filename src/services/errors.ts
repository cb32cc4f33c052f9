/**
 * The one error type of the services (accounts, webhooks): a broken rule, whose `kind` the HTTP error
 * handler maps to a status (not_found 404, forbidden 403, conflict 409, invalid 400) and the CLI to
 * a usage error. Services never build HTTP errors themselves.
 */
export type RuleKind = 'not_found' | 'forbidden' | 'conflict' | 'invalid';

export class ServiceError extends Error {
  constructor(
    readonly kind: RuleKind,
    message: string,
    /** The request field the rule refused (an `invalid` one's), for the API error's `param`. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The webhook service's broken rules, worded for the people who meet them. */
export const webhookErrors = {
  userNotFound: (id: string) => new ServiceError('not_found', `user not found: ${id}`),
  webhookNotFound: (id: string) => new ServiceError('not_found', `webhook not found: ${id}`),
  deliveryNotFound: (id: string) => new ServiceError('not_found', `delivery not found: ${id}`),
  webhookQuota: (plan: string, max: number) =>
    new ServiceError(
      'forbidden',
      max === 0
        ? `the ${plan} plan has no webhooks; upgrade to developer`
        : `the ${plan} plan allows at most ${max} webhooks; delete one first`,
    ),
  webhookTargetRefused: (reason: string) =>
    new ServiceError('invalid', `webhook URL refused: ${reason}`, 'url'),
  deliveryInFlight: (id: string) =>
    new ServiceError(
      'conflict',
      `delivery ${id} is being attempted right now; resend it once the attempt ends`,
    ),
  deliveryUnfinished: (id: string, status: string) =>
    new ServiceError(
      'conflict',
      `delivery ${id} is ${status}, not finished: resend it once it has succeeded or failed`,
    ),
  webhookSuspended: (id: string) =>
    new ServiceError(
      'conflict',
      `the webhook of delivery ${id} is suspended after failing continuously; re-enable it, then resend`,
    ),
  deletedWebhookEnabled: (id: string) =>
    new ServiceError('conflict', `webhook ${id} was deleted; create a new one instead`),
  suspendedWebhookTested: (id: string) =>
    new ServiceError(
      'conflict',
      `webhook ${id} is suspended after failing continuously; re-enable it, then send a test event`,
    ),
  webhookDeleted: (id: string) =>
    new ServiceError(
      'conflict',
      `the webhook of delivery ${id} was deleted; its deliveries cannot be resent`,
    ),
};
