/**
 * Webhook delivery on PostgreSQL with real worker processes (`market-intel worker`) and a real local
 * HTTPS receiver (self-signed certificate, admitted by WEBHOOK_ALLOW_CIDRS / WEBHOOK_CA_FILE):
 *   (1) latency from a new high signal's commit to its receipt, 100 webhooks, 2 workers (median, p99);
 *       also embedded mode: the embedded PostgreSQL with the in-process worker (woken by NOTIFY);
 *   (2) deliveries per second: 1,000 pending deliveries drained by 2 workers;
 *   (3) kill -9: N deliveries, one of the 2 workers SIGKILLed mid-run and restarted; counts created,
 *       succeeded, failed, duplicates seen by the receiver, and sends after a recorded success;
 *   (4) isolation: the latency of (1) for the 100 healthy webhooks, all-healthy and then with 10 more
 *       webhooks whose receiver never answers (each attempt waits the default 10 s timeout), 2 workers.
 *
 *   npm run bench:webhooks -- [--rounds 20] [--count 1000] [--kill-count 2000] [--only isolation]
 *
 * DATABASE_URL picks the database (default: scratch `market_intel_webhooks_bench` on 127.0.0.1:5432,
 * dropped and created anew).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createAccount } from '../src/services/accounts.ts';
import { type Db, openDb, openTemporaryDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { insertDeliveries } from '../src/store/webhooks.ts';
import { enqueueSignalCreated } from '../src/webhooks/outbox.ts';
import { createWebhook } from '../src/webhooks/service.ts';
import { TargetPolicy } from '../src/webhooks/target.ts';
import { DeliveryWorker } from '../src/webhooks/worker.ts';
import { makeCertificate, type Receiver, startReceiver } from '../test/webhooks/receiver.ts';
import { ensureDatabase, fmtInt, fmtMs, numberArg, summary, table } from './common.ts';

const BIN = fileURLToPath(new URL('../bin/market-intel.js', import.meta.url));
const ROUNDS = Math.floor(numberArg('rounds', 20));
const COUNT = Math.floor(numberArg('count', 1000));
const KILL_COUNT = Math.floor(numberArg('kill-count', 2000));
const HOOKS = 100;
const HANGING = 10;
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/market_intel_webhooks_bench';
const url = process.env.DATABASE_URL?.trim() || DEFAULT_URL;
const log = (line: string) => process.stderr.write(`bench:webhooks: ${line}\n`);

const certificate = makeCertificate();
/** Per delivery id: arrivals, and when the receiver answered 2xx first. */
const arrivals = new Map<string, number>();
let holdMs = 0;
const receiver: Receiver = await startReceiver(certificate, (request) => {
  // A hanging receiver: holds the request far past the sender's timeout.
  if (request.path.startsWith('/hang/')) return { status: 200, delayMs: 120_000 };
  const id = String(request.headers['x-service-delivery']);
  arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
  return { status: 200, delayMs: holdMs ? Math.random() * holdMs : 0 };
});
const healthy = (r: { path: string }) => r.path.startsWith('/hook/');

const env: Record<string, string> = {
  WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32',
  WEBHOOK_CA_FILE: certificate.certFile,
  WEBHOOK_TIMEOUT_MS: '2000',
  // Short waits, so a rare timed-out attempt shows as a retry rather than a 30 s stall.
  WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s',
  LOG_LEVEL: 'silent',
  // Cluster-mode workers refuse to start without one; in-process and spawned workers share it.
  SECRET_KEY: process.env.SECRET_KEY?.trim() || 'bench-webhooks-secret-key',
};
const config = loadConfig({ ...env, DATABASE_URL: url });

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

async function setup(db: Db): Promise<{ contractId: string }> {
  await migrate(db);
  await db.query(`INSERT INTO companies (ticker, name) VALUES ('BNCH', 'Bench Corp') ON CONFLICT DO NOTHING`);
  const contractId = `CONT_AWD_BENCH_${randomUUID()}`;
  await db.query(
    `INSERT INTO contracts (id, ticker, recipient_name, award_date, contract_value, awarding_agency,
       nlp_classification, match_confidence, match_method)
     VALUES ($1, 'BNCH', 'BENCH CORP', '2024-03-01', 50000000, 'Department of Defense', 'aircraft', 1, 'exact_alias')`,
    [contractId],
  );
  const user = await createAccount(db, {
    email: `bench-${randomUUID()}@bench.invalid`,
    plan: 'institutional',
  });
  const ctx = {
    db,
    secretKey: null,
    policy: new TargetPolicy(config.webhookAllowCidrs),
    resolve: async () => [],
    now: () => new Date(),
    secretOverlapMs: 0,
  };
  for (let i = 0; i < HOOKS; i++)
    await createWebhook(ctx, { userId: user.id, url: `${receiver.url}/hook/${i}` });
  return { contractId };
}

/** A new signal row and its deliveries in one transaction, as the pipeline does; resolves at commit. */
async function newHighSignal(db: Db, contractId: string): Promise<number> {
  await db.transaction(async (tx) => {
    const id = randomUUID();
    await tx.query(
      `INSERT INTO signals (id, contract_id, ticker, engine_name, engine_version, engine_tier, signal_score,
         importance_score, confidence_score, risk_score, rationale, computed_at)
       VALUES ($1, $2, 'BNCH', 'materiality', $3, 'developer', 90, 80, 70, 30, '[]', now())`,
      [id, contractId, `bench-${id}`],
    );
    await enqueueSignalCreated(tx, [{ id, contract_id: contractId, signal_score: 90, inserted: true }], 75);
  });
  return Date.now();
}

async function latency(db: Db, contractId: string, label: string): Promise<string[]> {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = receiver.received.filter(healthy).length;
    const committed = await newHighSignal(db, contractId);
    const got = await receiver.waitFor(before + HOOKS, healthy, 60_000);
    for (const r of got.slice(before)) samples.push(r.at - committed);
  }
  samples.sort((a, b) => a - b);
  const [retried] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_deliveries WHERE attempts > 1',
  );
  if (retried?.n) log(`${label}: ${retried.n} deliveries needed more than one attempt`);
  return [
    label,
    fmtInt(samples.length),
    fmtMs(percentile(samples, 0.5)),
    fmtMs(percentile(samples, 0.99)),
    fmtMs(samples.at(-1) ?? 0),
  ];
}

/** Every worker spawned; killed if this bench exits early, so none keeps claiming from the next run's database. */
const spawned = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of spawned) child.kill('SIGKILL');
});

function startWorker(extra: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: { ...process.env, ...env, ...extra, DATABASE_URL: url },
    stdio: 'ignore',
  });
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  return child;
}

async function listeners(db: Db): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
  );
  return rows[0]?.n ?? 0;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function counts(db: Db): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status',
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

async function enqueueMany(db: Db, n: number): Promise<void> {
  const hooks = await db.query<{ id: string }>(
    'SELECT id FROM webhooks WHERE disabled_at IS NULL ORDER BY id',
  );
  const rows = Array.from({ length: n }, (_, i) => ({
    webhookId: hooks[i % hooks.length]?.id ?? '',
    event: 'signal.created',
    payload: { event: 'signal.created', data: { n: i }, ts: Date.now() },
  }));
  await db.transaction((tx) => insertDeliveries(tx, rows));
}

const stop = async (child: ChildProcess, signal: NodeJS.Signals) => {
  const done = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await done;
};

/**
 * (4) The healthy webhooks' latency, then the same with HANGING more webhooks whose receiver never
 * answers, on worker processes with the default 10 s timeout. Returns both rows.
 */
async function isolation(db: Db, contractId: string): Promise<string[][]> {
  const pair = [startWorker({ WEBHOOK_TIMEOUT_MS: '10000' }), startWorker({ WEBHOOK_TIMEOUT_MS: '10000' })];
  await until(async () => (await listeners(db)) >= 2, 30_000, 'isolation workers listening');
  log('isolation: 100 healthy webhooks');
  const calm = await latency(db, contractId, `${HOOKS} healthy`);
  const [user] = await db.query<{ user_id: string }>('SELECT user_id FROM webhooks LIMIT 1');
  const ctx = {
    db,
    secretKey: null,
    policy: new TargetPolicy(config.webhookAllowCidrs),
    resolve: async () => [],
    now: () => new Date(),
    secretOverlapMs: 0,
  };
  for (let i = 0; i < HANGING; i++)
    await createWebhook(ctx, { userId: user?.user_id ?? '', url: `${receiver.url}/hang/${i}` });
  log(`isolation: 100 healthy and ${HANGING} hanging webhooks`);
  const stormy = await latency(db, contractId, `${HOOKS} healthy beside ${HANGING} hanging (their latency)`);
  await Promise.all(pair.map((w) => stop(w, 'SIGTERM')));
  await db.query("UPDATE webhooks SET disabled_at = now() WHERE url LIKE '%/hang/%'");
  await db.query("DELETE FROM webhook_deliveries WHERE status <> 'succeeded'");
  return [calm, stormy];
}

if (ONLY === 'isolation') {
  await ensureDatabase(url, { recreate: url === DEFAULT_URL });
  const db = await openDb({ databaseUrl: url, dataDir: '' });
  const { contractId } = await setup(db);
  const rows = await isolation(db, contractId);
  await db.close();
  await receiver.close();
  certificate.cleanup();
  process.stdout.write(
    summary('webhook isolation', [
      table(['setup', 'receipts', 'median', 'p99', 'max'], rows),
      '',
      `(4) signal commit → receipt at the healthy receivers, ${ROUNDS} signals, 2 worker processes, timeout 10 s`,
    ]),
  );
  process.exit(0);
}

// (1b) embedded: a PostgreSQL child process, the in-process worker woken by NOTIFY.
log('embedded latency (embedded PostgreSQL, in-process worker)');
const embeddedDb = await openTemporaryDb();
const embedded = await setup(embeddedDb);
const inProcess = new DeliveryWorker({ db: embeddedDb, config: loadConfig(env) });
await inProcess.start();
const embeddedRow = await latency(
  embeddedDb,
  embedded.contractId,
  'embedded PostgreSQL, 1 in-process worker (NOTIFY)',
);
await inProcess.stop();
await embeddedDb.close();

await ensureDatabase(url, { recreate: url === DEFAULT_URL });
const db = await openDb({ databaseUrl: url, dataDir: '' });
const { contractId } = await setup(db);
let workers = [startWorker(), startWorker()];
await until(async () => (await listeners(db)) >= 2, 30_000, 'workers listening');

log('PostgreSQL latency (2 worker processes, LISTEN/NOTIFY)');
const pgRow = await latency(db, contractId, 'PostgreSQL, 2 worker processes (LISTEN/NOTIFY)');
await Promise.all(workers.map((w) => stop(w, 'SIGTERM')));

const isolationRows = await isolation(db, contractId);
workers = [startWorker(), startWorker()];
await until(async () => (await listeners(db)) >= 2, 30_000, 'workers listening again');

log(`throughput: ${COUNT} pending deliveries`);
await db.query("DELETE FROM webhook_deliveries WHERE status = 'succeeded'");
const t0 = performance.now();
await enqueueMany(db, COUNT);
await until(async () => (await counts(db)).succeeded === COUNT, 120_000, 'throughput run');
const seconds = (performance.now() - t0) / 1000;

log(`kill -9: ${KILL_COUNT} deliveries, receiver answering in 0-50 ms`);
await db.query('DELETE FROM webhook_deliveries');
arrivals.clear();
holdMs = 50;
const receivedBefore = receiver.received.length;
const killStart = performance.now();
await enqueueMany(db, KILL_COUNT);
await until(async () => arrivals.size >= KILL_COUNT * 0.3, 60_000, 'first 30 %');
const [victim, survivor] = workers;
if (!victim || !survivor) throw new Error('no workers');
await stop(victim, 'SIGKILL');
log(`killed worker pid ${victim.pid} with ${arrivals.size} deliveries seen`);
await new Promise((resolve) => setTimeout(resolve, 500));
workers = [survivor, startWorker()];
await until(
  async () => {
    const c = await counts(db);
    return (c.succeeded ?? 0) + (c.failed ?? 0) === KILL_COUNT;
  },
  120_000,
  'kill -9 run',
);
const killSeconds = (performance.now() - killStart) / 1000;
const final = await counts(db);
const answered = receiver.received.slice(receivedBefore);
const duplicateIds = [...arrivals.values()].filter((n) => n > 1).length;
const extraRequests = [...arrivals.values()].reduce((sum, n) => sum + n - 1, 0);
const [lost] = await db.query<{ n: number }>(
  "SELECT count(*)::int AS n FROM webhook_attempts WHERE error LIKE 'no outcome%'",
);
// A send after a recorded success would be an attempt started after the delivery's success.
const [late] = await db.query<{ n: number }>(
  `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
   WHERE d.status = 'succeeded' AND a.started_at > d.updated_at`,
);
await Promise.all(workers.map((w) => stop(w, 'SIGTERM')));
await db.close();
await receiver.close();
certificate.cleanup();

process.stdout.write(
  summary('webhook delivery', [
    table(['setup', 'receipts', 'median', 'p99', 'max'], [embeddedRow, pgRow]),
    '',
    `(1) latency: signal commit → receipt at a local HTTPS receiver, ${HOOKS} webhooks, ${ROUNDS} signals`,
    `(2) throughput: ${fmtInt(COUNT)} pending deliveries, 2 worker processes (16 in flight each): ` +
      `${seconds.toFixed(2)} s → ${fmtInt(COUNT / seconds)} deliveries/s`,
    `(3) kill -9: created ${fmtInt(KILL_COUNT)}, succeeded ${fmtInt(final.succeeded ?? 0)}, failed ${fmtInt(final.failed ?? 0)}, ` +
      `other ${fmtInt(KILL_COUNT - (final.succeeded ?? 0) - (final.failed ?? 0))}; in ${killSeconds.toFixed(1)} s`,
    `    receiver: ${fmtInt(arrivals.size)} distinct ids, ${fmtInt(answered.length)} answered requests, ` +
      `${fmtInt(duplicateIds)} ids seen twice (${fmtInt(extraRequests)} extra requests); ` +
      `${fmtInt(lost?.n ?? 0)} attempts cut off by the kill; ${fmtInt(late?.n ?? 0)} sends after a recorded success`,
    '',
    table(['(4) isolation', 'receipts', 'median', 'p99', 'max'], isolationRows),
    `    signal commit → receipt at the ${HOOKS} healthy receivers; 2 worker processes, timeout 10 s`,
  ]),
);
