import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { signatureHeader, standardSignature } from '../domain/signature.ts';
import { standardKey } from './secrets.ts';
import { type HostResolver, literalAddress, parseTargetUrl, type TargetPolicy, vetHost } from './target.ts';

export const USER_AGENT = 'ServiceWebhook/1.0';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface SenderOptions {
  policy: TargetPolicy;
  resolve: HostResolver;
  timeoutMs: number;
  /** PEM file of an extra trusted CA (WEBHOOK_CA_FILE), for test receivers. */
  caFile: string | null;
}

/** What is read from a receiver's answer: enough to free the connection, never the whole of a huge body. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The DNS step of every new connection: resolve, refuse the host if any address is not allowed, and
 * hand the socket the vetted address — there is no second lookup an attacker's DNS could answer
 * differently. TLS still verifies the certificate against the host name (SNI and Host are the name).
 */
function vettingLookup(policy: TargetPolicy, resolve: HostResolver): LookupFunction {
  return (hostname, options, callback) => {
    vetHost(hostname, policy, resolve).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : null;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        const chosen = usable[0];
        if (!chosen)
          callback(
            Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }),
            '',
          );
        else if (options.all) callback(null, usable);
        else callback(null, chosen.address, chosen.family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}

/** Signs and POSTs deliveries over one connection pool whose every connection is vetted. */
export class Sender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    // One secure context for every connection: passing `ca` per connection would parse the whole root
    // store each time (tens of ms per TLS handshake).
    const secureContext = options.caFile
      ? createSecureContext({ ca: [...rootCertificates, readFileSync(options.caFile, 'utf8')] })
      : undefined;
    this.agent = new Agent({
      connect: {
        lookup: vettingLookup(options.policy, options.resolve),
        secureContext,
        timeout: options.timeoutMs,
      },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  /**
   * One attempt: fresh signatures, no redirects followed, bounded by the timeout from start to end.
   * `secrets` is the current secret, then the previous one during a rotation's overlap window.
   */
  async send(input: {
    url: string;
    event: string;
    deliveryId: string;
    eventId: string;
    secrets: readonly string[];
    body: string;
  }): Promise<SendResult> {
    const started = performance.now();
    const done = (result: Omit<SendResult, 'durationMs'>): SendResult => ({
      ...result,
      durationMs: performance.now() - started,
    });
    try {
      const url = parseTargetUrl(input.url);
      // Literal addresses skip the lookup step, so they are checked here.
      if (literalAddress(url.hostname))
        await vetHost(url.hostname, this.options.policy, this.options.resolve);
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        headers: signedHeaders(input, Date.now() / 1000),
        body: input.body,
      });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return done({ ok: true, statusCode: status, error: null });
      const error =
        status >= 300 && status < 400 ? `redirect (HTTP ${status}) not followed` : `HTTP ${status}`;
      return done({ ok: false, statusCode: status, error });
    } catch (error) {
      return done({ ok: false, statusCode: null, error: describeError(error, this.options.timeoutMs) });
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * The headers of one attempt: ours (SPEC: X-Service-*, signed the Stripe way) and the Standard Webhooks
 * ones (webhook-id = the event id, webhook-timestamp = the same `t`), each with one signature per secret.
 */
export function signedHeaders(
  input: { event: string; deliveryId: string; eventId: string; secrets: readonly string[]; body: string },
  unixSec: number,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-event': input.event,
    'x-service-delivery': input.deliveryId,
    'x-service-signature': signatureHeader(input.secrets, input.body, unixSec),
    'webhook-id': input.eventId,
    'webhook-timestamp': String(Math.floor(unixSec)),
    'webhook-signature': standardSignature(
      input.secrets.map(standardKey),
      input.eventId,
      input.body,
      unixSec,
    ),
  };
}

function describeError(error: unknown, timeoutMs: number): string {
  const err = error as Error & { code?: string; cause?: unknown };
  if (err.name === 'TargetRefusedError') return `refused: ${err.message}`;
  const cause = err.cause as (Error & { code?: string }) | undefined;
  if (cause?.name === 'TargetRefusedError') return `refused: ${cause.message}`;
  const code = err.code ?? cause?.code;
  if (err.name === 'TimeoutError' || err.name === 'AbortError' || (code && /TIMEOUT/.test(code))) {
    return `timeout after ${timeoutMs} ms`;
  }
  return `connection error: ${code ? `${code} ` : ''}${err.message}`.trim();
}
