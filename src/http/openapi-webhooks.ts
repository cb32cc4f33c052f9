/**
 * The top-level `webhooks` of the OpenAPI document: the `signal.created` and `webhook.test` POSTs the
 * delivery worker sends (webhooks/delivery.ts), their headers, payloads (webhooks/outbox.ts,
 * webhooks/developer.ts) and what the answers mean.
 * Figures are the configuration's defaults: the document is the same whatever the environment.
 */
import { loadConfig } from '../config.ts';
import { USER_AGENT } from '../webhooks/delivery.ts';
import { SIGNAL_CREATED, WEBHOOK_TEST } from '../webhooks/outbox.ts';
import { SCHEMA_REF } from './openapi-components.ts';
import { webhookExamples } from './schemas/examples.ts';

const seconds = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

function retryPolicy(): string {
  const defaults = loadConfig({});
  const waits = defaults.webhookRetryScheduleMs;
  return (
    `Any 2xx within ${seconds(defaults.webhookTimeoutMs)} (WEBHOOK_TIMEOUT_MS, for the whole attempt) is delivered. ` +
    'Anything else is a failed attempt: another status, a redirect (never followed), no answer in time, ' +
    'a connection or TLS error. At most 64 KiB of the answer is read. After a failed attempt the next one ' +
    `waits ${waits.map(seconds).join(', ')} (WEBHOOK_RETRY_SCHEDULE), counted from the end of the failed ` +
    `attempt: ${waits.length + 1} attempts in all, then the delivery is \`failed\` (resend it from the API). ` +
    'From the third failure in a row the endpoint is backed off along the same schedule, and an endpoint ' +
    `failing without a success for ${seconds(defaults.webhookSuspendAfterMs)} (WEBHOOK_SUSPEND_AFTER) is ` +
    'suspended until re-enabled. Delivery is at least once and unordered: de-duplicate on X-Service-Delivery ' +
    '(or the event id, `webhook-id`).'
  );
}

const header = (name: string, description: string, schema: Record<string, unknown>, example: string) => ({
  in: 'header',
  name,
  required: true,
  description,
  schema,
  example,
});

const SIGNATURES =
  'One signature per secret: during a rotation’s overlap window (POST /api/v1/webhooks/{id}/rotate-secret) the new ' +
  'secret’s first, then the previous one’s; accept the delivery when any of them verifies.';

type Example = ReturnType<typeof webhookExamples>[keyof ReturnType<typeof webhookExamples>];

/** The headers of every delivery (webhooks/delivery.ts `signedHeaders`), with `example`'s values. */
function deliveryHeaders(event: string, example: Example) {
  const value = (name: string) => example.headers[name] ?? '';
  return [
    header('User-Agent', 'The delivery worker.', { type: 'string', enum: [USER_AGENT] }, USER_AGENT),
    header('X-Service-Event', 'The event type.', { type: 'string', enum: [event] }, event),
    header(
      'X-Service-Delivery',
      'The delivery id: the same on every attempt and every resend of this delivery; de-duplicate on it.',
      { type: 'string', format: 'uuid' },
      example.delivery,
    ),
    header(
      'X-Service-Signature',
      '`t=<unix seconds of this attempt>,v1=<hex HMAC-SHA256>`, the HMAC keyed with the webhook secret (the whole string, as Stripe’s verifier uses it) over `t`, a `.` and the raw body; computed afresh for each attempt. ' +
        `${SIGNATURES} Refuse a \`t\` too far from now (300 s is the default tolerance).`,
      { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64}){1,2}$' },
      value('x-service-signature'),
    ),
    header(
      'webhook-id',
      'Standard Webhooks: the event id, the body’s `id` (the same on every attempt and resend).',
      { type: 'string', format: 'uuid' },
      value('webhook-id'),
    ),
    header(
      'webhook-timestamp',
      'Standard Webhooks: the same unix seconds as X-Service-Signature’s `t`.',
      { type: 'string', pattern: '^\\d+$' },
      value('webhook-timestamp'),
    ),
    header(
      'webhook-signature',
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the bytes of the base64 after the secret’s `whsec_`; space-separated. ' +
        `${SIGNATURES} The \`standardwebhooks\` and \`svix\` verifiers take the secret as shown.`,
      { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$' },
      value('webhook-signature'),
    ),
  ];
}

const RESPONSES = {
  '2XX': { description: 'Delivered: no further attempt.' },
  '4XX': { description: 'A failed attempt: retried on the schedule described above.' },
  default: {
    description:
      'Any other status, a redirect or no answer in time: a failed attempt, retried on the schedule described above.',
  },
};

function operation(input: {
  event: string;
  operationId: string;
  summary: string;
  description: string;
  schema: string;
  example: Example;
}) {
  return {
    post: {
      operationId: input.operationId,
      summary: input.summary,
      description: `${input.description} Verify a signature over the raw body before parsing it. ${retryPolicy()}`,
      tags: ['webhooks'],
      security: [],
      parameters: deliveryHeaders(input.event, input.example),
      requestBody: {
        required: true,
        description: 'The same bytes on every attempt (keys in a fixed order).',
        content: {
          'application/json': {
            schema: { $ref: `${SCHEMA_REF}${input.schema}` },
            example: input.example.payload,
          },
        },
      },
      responses: RESPONSES,
    },
  };
}

/** The document's `webhooks`: the events a webhook receives. */
export function webhookOperations() {
  const examples = webhookExamples();
  return {
    [SIGNAL_CREATED]: operation({
      event: SIGNAL_CREATED,
      operationId: 'signalCreated',
      summary: 'A new signal at or above the signal threshold',
      description:
        'Sent to each of a user’s webhooks when a signal row is created (not recomputed) with `signal_score` at or ' +
        `above SIGNAL_THRESHOLD (default ${loadConfig({}).signalThreshold}), if the user's plan has webhooks and reaches ` +
        "the signal's engine tier.",
      schema: 'SignalCreatedEvent',
      example: examples[SIGNAL_CREATED],
    }),
    [WEBHOOK_TEST]: operation({
      event: WEBHOOK_TEST,
      operationId: 'webhookTest',
      summary: 'A test event, sent on request',
      description:
        'Sent to one webhook by POST /api/v1/webhooks/{id}/test (or the dashboard’s button), signed and delivered like ' +
        'any event. `test` is true and `data` names only the webhook: no receiver should take it for a market event.',
      schema: 'WebhookTestEvent',
      example: examples[WEBHOOK_TEST],
    }),
  };
}
