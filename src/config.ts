import path from 'node:path';
import { DEFAULT_DOD_BASE_URL } from './sources/dod-client.ts';
import { DEFAULT_DOD_FEED_URL } from './sources/dod-feed.ts';

/** Runtime configuration, read once from the environment. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  logLevel: string;
  trustProxy: boolean;
  secretKey: string | null;
  signalThreshold: number;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  /** The request path's deadline per SQL statement (QUERY_TIMEOUT_MS; 0: none). */
  queryTimeoutMs: number;
  /** An export whose client takes nothing for this long is cut off (EXPORT_STALL_MS, 30 s). */
  exportStallMs: number;
  /**
   * The longest an export may run, waits for the rate limit included, before it is ended
   * (EXPORT_DEADLINE_MS, 20 min): no export holds a slot and a connection for longer.
   */
  exportDeadlineMs: number;
  /** An endpoint failing without a success for this long is suspended (WEBHOOK_SUSPEND_AFTER, 5d). */
  webhookSuspendAfterMs: number;
  webhookAllowCidrs: string[];
  /**
   * Browser origins (`https://app.example.com`) whose pages may call the API cross-origin
   * (CORS_ORIGINS, comma-separated; default none: CORS off). See http/cors.ts.
   */
  corsOrigins: string[];
  webhookCaFile: string | null;
  /** After a secret rotation, how long deliveries are signed with the previous secret too (default 24 h). */
  webhookSecretOverlapMs: number;
  usaspendingBaseUrl: string;
  /** Where `ingest announcements --from/--to` asks for DoD's daily contracts pages (DOD_CONTRACTS_BASE_URL). */
  dodContractsBaseUrl: string;
  /** The RSS feed of DoD's contract releases that `ingest announcements --live` reads (DOD_CONTRACTS_FEED_URL). */
  dodContractsFeedUrl: string;
  /** An http(s) proxy for DoD's site (DOD_CONTRACTS_PROXY); null: HTTPS_PROXY/HTTP_PROXY, else direct. */
  dodContractsProxy: string | null;
  /** The User-Agent sent to DoD's site (DOD_CONTRACTS_USER_AGENT); null: the default. */
  dodContractsUserAgent: string | null;
  /** Deadline of one request to DoD's site, ms (DOD_CONTRACTS_TIMEOUT_MS, default 30 s). */
  dodContractsTimeoutMs: number;
  /** Poll the live announcements on their schedule in `serve` and `worker` (ANNOUNCEMENTS_LIVE, default off). */
  announcementsLive: boolean;
  /** Interval of the in-process USASpending ingest, in ms; null when off (the default). */
  ingestSchedule: number | null;
  /** HTTP worker processes of `serve` (HTTP_WORKERS); null: the default, one per core (see cluster.ts). */
  httpWorkers: number | null;
  /**
   * Bytes of serialized read responses kept in memory (RESPONSE_CACHE_MB, default 64; 0 turns the
   * response cache off). A budget for the whole server: `serve --workers N` gives each worker 1/N.
   */
  responseCacheBytes: number;
  /**
   * Requests counted and timed for /metrics (REQUEST_METRICS, default on). Off, only to measure what
   * that costs: the other series stay.
   */
  requestMetrics: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`invalid ${variable}: ${detail}`);
  }
}

type Env = Record<string, string | undefined>;

/** The most HTTP workers `serve` runs (`--workers`, HTTP_WORKERS). */
export const MAX_HTTP_WORKERS = 64;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `expected ${min}..${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === null) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = text(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL`);
  }
  return raw;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30s,1m,2m` → [30000, 60000, 120000]. */
export function parseDurations(raw: string, name: string): number[] {
  return raw.split(',').map((part) => {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(part.trim());
    if (!match?.[1] || !match[2])
      throw new ConfigError(name, `"${part.trim()}" is not a duration like 30s or 2m`);
    return Number(match[1]) * (DURATION_UNITS[match[2]] ?? 1);
  });
}

function oneDuration(raw: string, name: string): number {
  const [value, ...rest] = parseDurations(raw, name);
  if (value === undefined || rest.length > 0)
    throw new ConfigError(name, `"${raw}" is not one duration like 5d`);
  return value;
}

const SCHEDULE_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The scheduler's interval: `off`, or `30m`, `6h`, `24h`, `1d`; at least a minute, at most a week. */
export function parseSchedule(raw: string | null): number | null {
  if (raw === null || raw.toLowerCase() === 'off') return null;
  const match = /^(\d+)(m|h|d)$/.exec(raw);
  const ms = match ? Number(match[1]) * (SCHEDULE_UNITS[match[2] ?? ''] ?? 0) : 0;
  if (ms < 60_000 || ms > 7 * 86_400_000) {
    throw new ConfigError(
      'INGEST_SCHEDULE',
      `expected off or an interval from 1m to 7d such as 30m, 6h or 24h, got "${raw}"`,
    );
  }
  return ms;
}

/** A header value: printable ASCII, at most 200 characters. */
function headerText(env: Env, name: string): string | null {
  const raw = text(env, name);
  if (raw !== null && !/^[\x20-\x7e]{1,200}$/.test(raw))
    throw new ConfigError(name, 'expected at most 200 printable ASCII characters');
  return raw;
}

function cidrs(env: Env, name: string): string[] {
  const raw = text(env, name);
  if (raw === null) return [];
  return raw.split(',').map((part) => {
    const cidr = part.trim();
    if (!/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(cidr)) throw new ConfigError(name, `"${cidr}" is not a CIDR block`);
    return cidr;
  });
}

/** `scheme://host[:port]` exactly as a browser sends it in `Origin`: no path, no wildcard, no trailing slash. */
function origins(env: Env, name: string): string[] {
  const raw = text(env, name);
  if (raw === null) return [];
  return raw.split(',').map((part) => {
    const origin = part.trim();
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    const exact = parsed && /^https?:$/.test(parsed.protocol) && parsed.origin === origin;
    if (!exact) {
      throw new ConfigError(
        name,
        `"${origin}" is not an origin like https://app.example.com (scheme and host, optional port, nothing else; no *)`,
      );
    }
    return origin;
  });
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel,
    trustProxy: bool(env, 'TRUST_PROXY'),
    requestMetrics: text(env, 'REQUEST_METRICS') === null || bool(env, 'REQUEST_METRICS'),
    secretKey: text(env, 'SECRET_KEY'),
    signalThreshold: integer(env, 'SIGNAL_THRESHOLD', 75, 0, 100),
    webhookRetryScheduleMs: parseDurations(
      text(env, 'WEBHOOK_RETRY_SCHEDULE') ?? '30s,1m,2m,4m,8m',
      'WEBHOOK_RETRY_SCHEDULE',
    ),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
    queryTimeoutMs: integer(env, 'QUERY_TIMEOUT_MS', 10_000, 0, 600_000),
    exportStallMs: integer(env, 'EXPORT_STALL_MS', 30_000, 100, 600_000),
    exportDeadlineMs: integer(env, 'EXPORT_DEADLINE_MS', 1_200_000, 1_000, 86_400_000),
    webhookSuspendAfterMs: oneDuration(text(env, 'WEBHOOK_SUSPEND_AFTER') ?? '5d', 'WEBHOOK_SUSPEND_AFTER'),
    webhookAllowCidrs: cidrs(env, 'WEBHOOK_ALLOW_CIDRS'),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    webhookCaFile: text(env, 'WEBHOOK_CA_FILE'),
    webhookSecretOverlapMs: oneDuration(
      text(env, 'WEBHOOK_SECRET_OVERLAP') ?? '24h',
      'WEBHOOK_SECRET_OVERLAP',
    ),
    usaspendingBaseUrl:
      url(env, 'USASPENDING_BASE_URL', ['http:', 'https:']) ?? 'https://api.usaspending.gov',
    dodContractsBaseUrl: url(env, 'DOD_CONTRACTS_BASE_URL', ['http:', 'https:']) ?? DEFAULT_DOD_BASE_URL,
    dodContractsFeedUrl: url(env, 'DOD_CONTRACTS_FEED_URL', ['http:', 'https:']) ?? DEFAULT_DOD_FEED_URL,
    dodContractsProxy: url(env, 'DOD_CONTRACTS_PROXY', ['http:', 'https:']),
    dodContractsUserAgent: headerText(env, 'DOD_CONTRACTS_USER_AGENT'),
    dodContractsTimeoutMs: integer(env, 'DOD_CONTRACTS_TIMEOUT_MS', 30_000, 100, 600_000),
    announcementsLive: bool(env, 'ANNOUNCEMENTS_LIVE'),
    ingestSchedule: parseSchedule(text(env, 'INGEST_SCHEDULE')),
    httpWorkers:
      text(env, 'HTTP_WORKERS') === null ? null : integer(env, 'HTTP_WORKERS', 1, 1, MAX_HTTP_WORKERS),
    responseCacheBytes: integer(env, 'RESPONSE_CACHE_MB', 64, 0, 16_384) * 1024 * 1024,
  };
}
