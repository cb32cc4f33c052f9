import type { FastifyBaseLogger, FastifyError, FastifyLoggerOptions, FastifyRequest } from 'fastify';
import {
  type Bindings,
  type ChildLoggerOptions,
  type DestinationStream,
  type LogFn,
  type LoggerOptions,
  stdSerializers,
} from 'pino';
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

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LevelledLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/**
 * A request's logger, made only when the request logs something. Fastify makes one child logger per
 * request (its `reqId` binding) whether or not anything is logged; at `warn` (the benchmarks' level,
 * and a quiet deployment's) a successful read logs nothing, and pino's child (an object with its own
 * formatters, its bindings serialized to JSON) was a few µs of each answer (docs/EVALUATION.md "Read-path tail", fourth pass). The first call
 * at an enabled level — or anything that reads or changes the logger's state — makes the same child
 * `parent.child(bindings, options)` would have made, and everything goes to it from then on.
 */
export class RequestLogger {
  #child: FastifyBaseLogger | null = null;
  readonly #parent: LevelledLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: LevelledLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The real child logger, made at most once. */
  made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  /** Whether the child has been made (tests). */
  get isMade(): boolean {
    return this.#child !== null;
  }

  #log(level: Level, args: unknown[]): void {
    if (!this.#child && !this.#parent.isLevelEnabled(level)) return;
    (this.made()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#child ? this.#child.level : this.#parent.level;
  }

  set level(level: string) {
    this.made().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.#child
      ? (this.#child as LevelledLogger).isLevelEnabled(level)
      : this.#parent.isLevelEnabled(level);
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }

  bindings(): Bindings {
    return (this.made() as FastifyBaseLogger & { bindings(): Bindings }).bindings();
  }
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger, or the child itself when the route sets its own
 * level or serializers (none does today; the level check above reads the parent's level).
 */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const parent = logger as Partial<LevelledLogger>;
  if (options.level !== undefined || options.serializers !== undefined || !parent.isLevelEnabled)
    return logger.child(bindings, options);
  return new RequestLogger(logger as LevelledLogger, bindings, options) as unknown as FastifyBaseLogger;
}
