import { Type } from 'typebox';
import { Contract, Prediction, Signal } from '../../shapes/resources.ts';
import { DELIVERY_STATUSES, WEBHOOK_STATES } from '../../store/webhooks.ts';
import { SIGNAL_CREATED, WEBHOOK_EVENTS, WEBHOOK_TEST } from '../../webhooks/outbox.ts';
import {
  Cursor,
  errorResponses,
  IdempotencyHeaders,
  IdParams,
  Limit,
  Nullable,
  Offset,
  Pagination,
  Query,
  StringEnum,
} from './common.ts';

const Timestamp = Type.String({ format: 'date-time' });

export const WebhookEvent = StringEnum(WEBHOOK_EVENTS);
export const DeliveryStatus = StringEnum(DELIVERY_STATUSES);

/**
 * The body of a `signal.created` delivery as the outbox writes it (webhooks/outbox.ts): the Signal as
 * the API serves it but never with `rationale`, and its Contract.
 */
const EventId = Type.String({
  format: 'uuid',
  description:
    'The event id, as in `webhook-id` but covered by the signatures: the same on every attempt and resend of ' +
    'this delivery, and for one new signal the same at each of your webhooks it is sent to.',
});
const DeliveryId = Type.String({
  format: 'uuid',
  description:
    'The delivery id, as in X-Service-Delivery but covered by the signature: the same on every attempt and ' +
    'resend of this delivery. De-duplicate on this one (and refuse a request whose header differs).',
});

export const SignalCreatedEvent = Type.Object({
  id: EventId,
  event: Type.Literal(SIGNAL_CREATED),
  delivery_id: DeliveryId,
  data: Type.Object(
    {
      signal: Signal,
      contract: Contract,
      prediction: Type.Optional({
        ...Prediction,
        description:
          "The event's stored prediction (GET /api/v1/predictions), when it has one and the receiver's plan reaches the intelligence tier.",
      }),
    },
    {
      description:
        'The new signal (never with `rationale`, whatever the tier), its contract and, on the intelligence tier, its prediction.',
    },
  ),
  ts: Type.Integer({ description: 'When the delivery was written, in milliseconds since the epoch.' }),
});

/** The body of a `webhook.test` delivery (webhooks/developer.ts): no signal, `test: true`. */
export const WebhookTestEvent = Type.Object({
  id: EventId,
  event: Type.Literal(WEBHOOK_TEST),
  delivery_id: DeliveryId,
  data: Type.Object(
    { webhook_id: Type.String({ format: 'uuid', description: 'The webhook the test was sent to.' }) },
    { description: 'Names the webhook tested; no signal.' },
  ),
  ts: Type.Integer({ description: 'When the test was requested, in milliseconds since the epoch.' }),
  test: Type.Literal(true, { description: 'Always true: a test event, not a market event.' }),
});

export const Webhook = Type.Object({
  id: Type.String({ format: 'uuid' }),
  user_id: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'HTTPS target receiving `signal.created` POSTs.' }),
  status: StringEnum(WEBHOOK_STATES, {
    description:
      '`active`; `failing` (its last attempt failed: one attempt at a time, backed off from the third failure in a row); ' +
      '`suspended` (failed without a break for the suspension period: nothing is sent until it is re-enabled); `deleted`.',
  }),
  created_at: Timestamp,
  disabled_at: Nullable(Type.String({ format: 'date-time', description: 'When the webhook was deleted.' })),
  failure_streak: Type.Integer({
    description: 'Attempts that failed in a row, across deliveries; 0 after a success.',
  }),
  failing_since: Nullable(
    Type.String({ format: 'date-time', description: 'The first failure of the streak.' }),
  ),
  retry_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'While backed off: no attempt is made before this time, whatever the delivery schedule says.',
    }),
  ),
  suspended_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When the webhook was suspended; null once re-enabled.',
    }),
  ),
  previous_secret_expires_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'After a secret rotation: until this time deliveries are signed with the previous secret too; null outside an overlap window.',
    }),
  ),
});

export const Delivery = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Sent as X-Service-Delivery, the same on every attempt.' }),
  webhook_id: Type.String({ format: 'uuid' }),
  event: StringEnum<string>(WEBHOOK_EVENTS),
  status: DeliveryStatus,
  attempts: Type.Integer({ description: 'Attempts made in the current series (at most 6).' }),
  series: Type.Integer({ description: 'Attempt series: 1, plus one per resend.' }),
  next_attempt_at: Nullable(Timestamp),
  last_status: Nullable(Type.Integer({ description: 'HTTP status of the last attempt.' })),
  last_error: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const Attempt = Type.Object({
  id: Type.String({ format: 'uuid' }),
  delivery_id: Type.String({ format: 'uuid' }),
  series: Type.Integer(),
  attempt_no: Type.Integer(),
  started_at: Timestamp,
  duration_ms: Nullable(Type.Integer()),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
});

export const WebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      pattern: '^[^\\u0000-\\u001f]*$',
      description: 'HTTPS URL; private, loopback and other non-public addresses are refused.',
    }),
  },
  { additionalProperties: false },
);

export const WebhookResponse = Type.Object({ webhook: Webhook });
export const NewWebhookResponse = Type.Object({
  webhook: Webhook,
  secret: Type.String({
    description:
      'The signing secret, `whsec_` and base64: shown once. Pass it as is to our SDK, to Stripe’s verifier and to the Standard Webhooks ones. Rotate it with POST /api/v1/webhooks/{id}/rotate-secret.',
  }),
});

/** At most a week: a longer overlap keeps a possibly leaked secret valid for too long. */
export const MAX_OVERLAP_SECONDS = 7 * 86_400;

export const RotateSecretBody = Type.Object(
  {
    overlap_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_SECONDS,
        description:
          'How long deliveries are still signed with the replaced secret as well (default WEBHOOK_SECRET_OVERLAP, 24 h); 0 drops it at once.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const WebhookList = Type.Object({ data: Type.Array(Webhook), pagination: Pagination });
export const DeliveryResponse = Type.Object({ delivery: Delivery });
export const DeliveryList = Type.Object({ data: Type.Array(Delivery), pagination: Pagination });
export const AttemptList = Type.Object({ data: Type.Array(Attempt), pagination: Pagination });

export const PageQuery = Query({ limit: Limit(200, 50), offset: Offset, cursor: Type.Optional(Cursor) });
export const AttemptsQuery = Query({
  limit: Limit(1000, 1000),
  offset: Offset,
  cursor: Type.Optional(Cursor),
});
export const DeliveriesQuery = Query({
  limit: Limit(200, 50),
  offset: Offset,
  cursor: Type.Optional(Cursor),
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this state.' })),
});

/**
 * The operations on one webhook or delivery: the same for its owner (`webhooks`) and for an admin
 * acting on anyone's (`admin`), but for the tag they are listed under.
 */
export function oneWebhookSchemas(tag: 'webhooks' | 'admin') {
  return {
    delete: {
      tags: [tag],
      summary: 'Delete a webhook (its deliveries stay listed)',
      params: IdParams('Webhook'),
      querystring: Query({}),
      response: { 200: WebhookResponse, ...errorResponses(400, 404) },
    },
    enable: {
      tags: [tag],
      summary:
        'Re-enable a suspended or backed-off webhook: its failure streak is cleared and its waiting deliveries are due now',
      params: IdParams('Webhook'),
      querystring: Query({}),
      response: { 200: WebhookResponse, ...errorResponses(400, 404, 409) },
    },
    deliveries: {
      tags: [tag],
      summary: "A webhook's deliveries, newest first",
      params: IdParams('Webhook'),
      querystring: DeliveriesQuery,
      response: { 200: DeliveryList, ...errorResponses(400, 404) },
    },
    attempts: {
      tags: [tag],
      summary: "A delivery's attempts, every series, in order",
      params: IdParams('Delivery'),
      querystring: AttemptsQuery,
      response: { 200: AttemptList, ...errorResponses(400, 404) },
    },
    test: {
      tags: [tag],
      summary:
        'Send a `webhook.test` event (marked `test: true`): signed and delivered like any event; returns its delivery',
      params: IdParams('Webhook'),
      querystring: Query({}),
      headers: IdempotencyHeaders,
      response: { 202: DeliveryResponse, ...errorResponses(400, 403, 404, 409) },
    },
    rotate: {
      tags: [tag],
      summary:
        'Rotate the signing secret: the new one is in `secret`, once; the old one still signs during the overlap window',
      params: IdParams('Webhook'),
      querystring: Query({}),
      headers: IdempotencyHeaders,
      body: RotateSecretBody,
      // None at all is `{}` (routes/webhooks.ts rotationBody).
      'x-optional-body': true,
      response: { 200: NewWebhookResponse, ...errorResponses(400, 404, 409) },
    },
    resend: {
      tags: [tag],
      summary: 'Resend a delivery: a new attempt series with the same delivery id, due now',
      params: IdParams('Delivery'),
      querystring: Query({}),
      headers: IdempotencyHeaders,
      response: { 202: DeliveryResponse, ...errorResponses(400, 404, 409) },
    },
  };
}
