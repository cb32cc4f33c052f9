/**
 * The top-level `webhooks` of the OpenAPI document: the `signal.created` POST the delivery worker
 * sends (webhooks/delivery.ts), its headers, payload (webhooks/outbox.ts) and what the answers mean.
 * Figures are the configuration's defaults: the document is the same whatever the environment.
 */
import { loadConfig } from '../config.ts';
import { USER_AGENT } from '../webhooks/delivery.ts';
import { SIGNAL_CREATED } from '../webhooks/outbox.ts';
import { SCHEMA_REF } from './openapi-components.ts';
import { webhookExample } from './schemas/examples.ts';

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
    'suspended until re-enabled. Delivery is at least once and unordered: de-duplicate on X-Service-Delivery.'
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

export function signalCreatedWebhook() {
  const example = webhookExample();
  return {
    [SIGNAL_CREATED]: {
      post: {
        operationId: 'signalCreated',
        summary: 'A new signal at or above the signal threshold',
        description:
          'Sent to each of a user’s webhooks when a signal row is created (not recomputed) with `signal_score` at or ' +
          `above SIGNAL_THRESHOLD (default ${loadConfig({}).signalThreshold}), if the user's plan has webhooks and reaches ` +
          "the signal's engine tier. Verify `X-Service-Signature` over the raw body before parsing it. " +
          retryPolicy(),
        tags: ['webhooks'],
        security: [],
        parameters: [
          header('User-Agent', 'The delivery worker.', { type: 'string', enum: [USER_AGENT] }, USER_AGENT),
          header(
            'X-Service-Event',
            'The event type.',
            { type: 'string', enum: [SIGNAL_CREATED] },
            SIGNAL_CREATED,
          ),
          header(
            'X-Service-Delivery',
            'The delivery id: the same on every attempt and every resend of this delivery; de-duplicate on it.',
            { type: 'string', format: 'uuid' },
            example.delivery,
          ),
          header(
            'X-Service-Signature',
            '`t=<unix seconds of this attempt>,v1=<hex HMAC-SHA256>`, the HMAC keyed with the webhook secret over `t`, a `.` and the raw body; computed afresh for each attempt. Refuse a `t` too far from now (300 s is the default tolerance).',
            { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
            example.signature,
          ),
        ],
        requestBody: {
          required: true,
          description: 'The same bytes on every attempt (keys in a fixed order).',
          content: {
            'application/json': {
              schema: { $ref: `${SCHEMA_REF}SignalCreatedEvent` },
              example: example.payload,
            },
          },
        },
        responses: {
          '2XX': { description: 'Delivered: no further attempt.' },
          '4XX': { description: 'A failed attempt: retried on the schedule described above.' },
          default: {
            description:
              'Any other status, a redirect or no answer in time: a failed attempt, retried on the schedule described above.',
          },
        },
      },
    },
  };
}
