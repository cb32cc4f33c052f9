import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { QueueFullError } from '../domain/work-queue.ts';
import { ClusterMetricsUnavailableError } from '../infra/cluster-metrics.ts';
import { LimiterUnavailableError } from '../infra/limiter.ts';
import { ServiceError } from '../services/errors.ts';
import { isDatabaseUnavailable } from '../store/db.ts';
import { ApiError, errors } from './errors.ts';
import type { App } from './types.ts';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns an Ajv issue into a message that names the parameter. */
export function validationError(
  issue: ValidationIssue | undefined,
  context: string | undefined,
  knownQuery: string[] = [],
): ApiError {
  if (!issue) return errors.invalidBody('malformed request');
  const name = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const field = (child: string) => (name ? `${name}.${child}` : child);
  if (issue.keyword === 'additionalProperty' || issue.keyword === 'additionalProperties') {
    const extra = String(issue.params.additionalProperty ?? '');
    if (context === 'querystring') return errors.unknownParameter(extra, knownQuery);
    return errors.invalidBody(`unknown field "${field(extra)}"`, field(extra));
  }
  if (issue.keyword === 'required') {
    const missing = String(issue.params.missingProperty ?? '');
    if (context === 'querystring') return errors.invalidParameter(missing, 'is required');
    return errors.invalidBody(`missing field "${field(missing)}"`, field(missing));
  }
  const detail = describe(issue);
  if (context === 'headers') return errors.invalidHeader(name, detail);
  if (context === 'querystring') return errors.invalidParameter(name, detail);
  if (context === 'params') return errors.invalidPath(name, detail);
  // A body that is not an object at all has no field to name.
  return errors.invalidBody(`field "${name}" ${detail}`, name || undefined);
}

function describe(issue: ValidationIssue): string {
  switch (issue.keyword) {
    case 'format':
      return issue.params.format === 'date'
        ? 'must be a date YYYY-MM-DD'
        : `must be a valid ${issue.params.format}`;
    case 'type':
      return `must be ${issue.params.type === 'integer' ? 'an integer' : `of type ${issue.params.type}`}`;
    case 'pattern':
      return 'has an invalid format';
    case 'enum':
      return `must be one of ${(issue.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return issue.message ?? 'is invalid';
  }
}

const RULE_CODES = {
  not_found: 'not_found',
  forbidden: 'forbidden',
  conflict: 'conflict',
  invalid: 'invalid_body',
} as const;

export function toApiError(error: FastifyError, request?: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ServiceError) {
    // `param` belongs to the 400s (invalid_body): the other rules are about the account, not the request.
    const param = error.kind === 'invalid' ? error.field : undefined;
    return new ApiError(RULE_CODES[error.kind], error.message, {}, param);
  }
  if (error instanceof QueueFullError) return errors.busy();
  if (error instanceof LimiterUnavailableError) return errors.limiterUnavailable();
  if (error instanceof ClusterMetricsUnavailableError) return errors.unavailable(error.message);
  if (isDatabaseUnavailable(error)) return errors.databaseUnavailable();
  if (error.validation) {
    return validationError(
      error.validation[0] as ValidationIssue | undefined,
      error.validationContext,
      knownQuery(request),
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(String(error.message.split(': ').pop() ?? 'unknown'));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidBody('empty JSON body');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.invalidBody('Content-Length does not match the body sent');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalidBody('body is not valid JSON');
  }
  if (error instanceof SyntaxError || error.statusCode === 400)
    return errors.invalidBody('body is not valid JSON');
  return errors.internal();
}

function knownQuery(request: FastifyRequest | undefined): string[] {
  const schema = request?.routeOptions.schema?.querystring as
    | { properties?: Record<string, unknown> }
    | undefined;
  return Object.keys(schema?.properties ?? {});
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** At most one log line a second for 503s from a dependency: an outage must not flood the log. */
const outageLog = {
  last: 0,
  suppressed: 0,
  due(now: number): boolean {
    if (now - this.last < 1000) {
      this.suppressed += 1;
      return false;
    }
    this.last = now;
    return true;
  },
  take(): number {
    const count = this.suppressed;
    this.suppressed = 0;
    return count;
  },
};

/** Every error, 404 and 405 leaves in the one envelope. */
export function installErrorHandling(app: App): void {
  // A second router that knows every route, to tell "wrong method" from "no such path".
  const shadow = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD' && method !== 'OPTIONS')
        shadow.on(method as HTTPMethod, route.url, () => undefined);
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError.limit) app.metrics?.rateLimited(apiError.limit);
    if (apiError.status === 503)
      app.metrics?.unavailable(
        error instanceof LimiterUnavailableError ? 'limiter' : isDatabaseUnavailable(error) ? 'db' : 'busy',
      );
    // A 503 (busy, a dependency down) is expected under load; only the unexpected is an error.
    if (apiError.status === 500) request.log.error({ err: error }, 'request failed');
    else if (apiError.status === 503 && outageLog.due(Date.now())) {
      request.log.warn(
        { err: error, suppressed: outageLog.take() },
        'answered 503: busy, or a dependency is unavailable',
      );
    }
    void sendError(reply, request, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => shadow.find(method, path) !== null);
    const error = allowed.length
      ? errors.methodNotAllowed(request.method, allowed)
      : errors.routeNotFound(request.method, path);
    void sendError(reply, request, error);
  });
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json')
    .send(error.toEnvelope(request.id));
}
