import type { FastifyError, FastifyLoggerOptions, FastifyRequest } from 'fastify';
import { type DestinationStream, type LogFn, type LoggerOptions, stdSerializers } from 'pino';

/**
 * Credentials must not reach the logs. Headers carrying them are redacted wherever a logged request
 * or response shows its headers (Fastify's own serializers show none; these paths guard a serializer
 * that someday does). A raw key put in the URL — a client that sends `?api_key=iv_live_…`, or pastes
 * one into a path — is cut out of the logged URL, of log messages (Fastify's "Route … not found"
 * quotes the URL) and of error messages and stacks.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
];

/** A raw API key, also with its underscores percent-encoded. */
const RAW_KEY = /iv(?:_|%5f)(live|test)(?:_|%5f)[0-9a-z]*/gi;
/** The value of a query parameter named for a credential, whatever it holds. */
const CREDENTIAL_PARAM = /([?&](?:api[_-]?key|key|token|access_token)=)[^&#]*/gi;

export function redactSecrets(text: string): string {
  return text.replace(RAW_KEY, 'iv_$1_[redacted]').replace(CREDENTIAL_PARAM, '$1[redacted]');
}

/** Fastify's request serializer (less `accept-version`, which this API does not use), URL redacted. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactSecrets(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

function serializeError(error: FastifyError) {
  const serialized = stdSerializers.err(error);
  if (typeof serialized.message !== 'string' || typeof serialized.stack !== 'string') return serialized;
  return {
    ...serialized,
    message: redactSecrets(serialized.message),
    stack: redactSecrets(serialized.stack),
  };
}

/** Redacts the string arguments of every log call: the message and its format arguments. */
function logMethod(this: unknown, args: Parameters<LogFn>, method: LogFn): void {
  const redacted = args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg));
  method.apply(this, redacted as Parameters<LogFn>);
}

/** The app's logger: `level`, written to `stream` (default stdout). */
export function loggerOptions(
  level: string,
  stream?: DestinationStream,
): FastifyLoggerOptions & LoggerOptions {
  return {
    level,
    redact: REDACT,
    serializers: { req: serializeRequest, err: serializeError },
    hooks: { logMethod },
    ...(stream ? { stream } : {}),
  };
}
