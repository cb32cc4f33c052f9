import type { FastifyError, FastifyLoggerOptions, FastifyRequest } from 'fastify';
import { type DestinationStream, type LogFn, type LoggerOptions, stdSerializers } from 'pino';
import { redactSecrets, redactValues } from './redact.ts';

/**
 * Credentials must not reach the logs. Headers carrying them are redacted wherever a logged request
 * or response shows its headers (Fastify's own serializers show none; these paths guard a serializer
 * that someday does). A raw key put in the URL — a client that sends `?api_key=iv_live_…`, or pastes
 * one into a path — is cut out of the logged URL, of log messages (Fastify's "Route … not found"
 * quotes the URL), of the string values of logged objects (headers, bodies) and of error messages and
 * stacks, in any spelling that decodes to a key (src/http/redact.ts).
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
];

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
    formatters: { log: (fields) => redactValues(fields) as Record<string, unknown> },
    ...(stream ? { stream } : {}),
  };
}
