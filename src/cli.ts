import cluster from 'node:cluster';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CommandFailed, say, withDb } from './cli-errors.ts';
import { runServeWorker, serveCluster, workerCount } from './cluster.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { hashPassword } from './domain/passwords.ts';
import { isPlan, PLANS, SCOPES, type Scope } from './domain/plans.ts';
import { resolveSecretKey } from './secret-key.ts';
import { createAccount, issueKey } from './services/accounts.ts';
import { ServiceError } from './services/errors.ts';
import { findUserByEmail, revokeKey } from './store/accounts.ts';
import { describeDatabaseError, openTemporaryDb } from './store/db.ts';
import { DataDirBusyError } from './store/dir-lock.ts';
import { EmbeddedPostgresError } from './store/embedded-postgres.ts';
import { migrate } from './store/migrate.ts';

const USAGE = `usage: market-intel <command> [options]

commands:
  serve [--port N] [--workers N] [--no-seed] [--no-worker]
                                 migrate, seed an empty database, serve the API (and deliver
                                 webhooks, unless --no-worker) from N HTTP worker processes
                                 (default HTTP_WORKERS, else one per core,
                                 one fewer in embedded mode)
  worker                         only deliver webhooks (cluster mode: beside serve --no-worker)
  migrate                        apply pending SQL migrations
  seed                           load the shipped demo data (idempotent)
  reresolve [--data DIR]         reload the identity data (DIR/identity, default the shipped data),
                                 resolve every stored contract again on its own date, rescore
                                 those whose ticker moved; prints how many moved
  openapi [--write FILE]         print (or write) the OpenAPI 3.1 document
  evaluate [--engine E] [--version V] [--out DIR]
                                 event study of the stored signals: abnormal returns vs ITA and SPY
                                 by signal-score bucket → DIR/REPORT.md, chart.svg, events.csv
                                 (default DIR ./reports/evaluation-<engine>/)
  evaluate --source announcements [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--out DIR]
                                 announcement study of the stored DoD announcement events: abnormal
                                 returns vs XAR, ITA and SPY by score quartile (cut points fixed in
                                 sample) and kind → DIR/REPORT.md, chart.svg, events.csv
                                 (default DIR ./reports/evaluation-announcements/)
  users create --email E [--plan P] [--admin] [--password PW]
  keys create --email E --name N --scopes read[,write[,admin]] [--test] [--json]
                                 prints the raw key once (with --json: one JSON object,
                                 the raw key in \`secret\` as in the admin API)
  keys revoke --id ID
  ingest usaspending --file F    import a bulk-download award CSV or JSON array (.gz accepted)
  ingest usaspending --from YYYY-MM-DD --to YYYY-MM-DD [--restart]
                                 fetch contract awards from the USASpending API (USASPENDING_BASE_URL);
                                 an interrupted run resumes from its checkpoint when run again
  ingest candles --file F --ticker T
                                 import daily candles (date,open,high,low,close[,adj_close],volume)
  ingest announcements --file F [--date YYYY-MM-DD]
                                 DoD contract announcements: a CSV of paragraphs (.gz accepted), or
                                 one day's "Contracts for" page as plain text with --date
  ingest announcements --from YYYY-MM-DD --to YYYY-MM-DD
                                 fetch each day's page from DOD_CONTRACTS_BASE_URL (≤ 366 days a run)
  ingest announcements --live    one poll of DoD's contracts feed (DOD_CONTRACTS_FEED_URL): new
                                 releases and amendments to ones already read, each article once
  score [--engine E] [--all]     score contracts without a signal for the engine's current version
                                 (--all: rescore every matched contract)
  unmatched [--limit N] [--json] recipients without a ticker, largest total value first

In embedded mode (no DATABASE_URL) the commands start the embedded PostgreSQL in DATA_DIR,
or connect to it while a server runs there.
`;

const commands: Record<string, (args: string[], config: Config) => Promise<void>> = {
  async serve(args, config) {
    const { values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        workers: { type: 'string' },
        'no-seed': { type: 'boolean' },
        'no-worker': { type: 'boolean' },
      },
    });
    const port = values.port === undefined ? config.port : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new ConfigError('--port', 'expected 0..65535');
    const workers = workerCount(config, values.workers);
    const options = { seedIfEmpty: !values['no-seed'], worker: !values['no-worker'] };
    if (workers === 1) await (await import('./server.ts')).serve({ ...config, port }, options);
    else await serveCluster({ ...config, port }, options, workers);
  },
  async worker(args, config) {
    parseArgs({ args, options: {} });
    await (await import('./server.ts')).runWorker(config);
  },
  async migrate(args, config) {
    parseArgs({ args, options: {} });
    await withDb(config, async (db) => {
      const applied = await migrate(db);
      say(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    });
  },
  async seed(args, config) {
    parseArgs({ args, options: {} });
    await withDb(config, async (db) => {
      await migrate(db);
      const { seed } = await import('./pipeline/seed.ts');
      await seed(db, { signalThreshold: config.signalThreshold, log: say });
    });
  },
  async reresolve(args, config) {
    const { values } = parseArgs({ args, options: { data: { type: 'string' } } });
    await withDb(config, async (db) => {
      await migrate(db);
      const { DEMO_DATA_DIR } = await import('./pipeline/seed.ts');
      const { reresolve } = await import('./pipeline/reresolve.ts');
      const r = await reresolve(db, {
        signalThreshold: config.signalThreshold,
        dataDir: values.data ?? DEMO_DATA_DIR,
        log: say,
      });
      say(
        `reresolve: ${r.contracts} contracts resolved with ${r.version} (was ${r.previousVersion ?? 'none'}): ` +
          `${r.moved} awards moved ticker, ${r.changed} resolutions changed, ${r.signalsCreated} signals created`,
      );
    });
  },
  async openapi(args, config) {
    const { values } = parseArgs({ args, options: { write: { type: 'string' } } });
    const db = await openTemporaryDb();
    try {
      const { buildApp } = await import('./app.ts');
      const app = await buildApp({ config, db, logger: false });
      await app.ready();
      const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
      if (values.write) {
        await writeFile(values.write, text);
        say(`wrote ${values.write}`);
      } else process.stdout.write(text);
      await app.close();
    } finally {
      await db.close();
    }
  },
};

async function usersCommand(args: string[], config: Config): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'create')
    throw new UsageError('usage: users create --email E [--plan P] [--admin] [--password PW]');
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      plan: { type: 'string' },
      admin: { type: 'boolean' },
      password: { type: 'string' },
    },
  });
  if (!values.email) throw new UsageError('users create: --email is required');
  const plan = values.plan ?? 'free';
  if (!isPlan(plan)) throw new UsageError(`users create: --plan must be one of ${PLANS.join(', ')}`);
  if (values.password !== undefined && values.password.length < 8)
    throw new UsageError('users create: --password needs 8+ characters');
  const passwordHash = values.password ? await hashPassword(values.password) : null;
  await withDb(config, async (db) => {
    await migrate(db);
    const user = await createAccount(db, {
      email: values.email ?? '',
      plan,
      isAdmin: values.admin ?? false,
      passwordHash,
    });
    process.stdout.write(`${JSON.stringify({ user })}\n`);
  });
}

async function keysCommand(args: string[], config: Config): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        scopes: { type: 'string' },
        test: { type: 'boolean' },
        json: { type: 'boolean' },
      },
    });
    if (!values.email || !values.name || !values.scopes) {
      throw new UsageError('keys create: --email, --name and --scopes are required');
    }
    const scopes = values.scopes.split(',').map((s) => s.trim());
    const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length)
      throw new UsageError(`keys create: unknown scope ${unknown.join(', ')}; use ${SCOPES.join(', ')}`);
    await withDb(config, async (db) => {
      await migrate(db);
      const user = await findUserByEmail(db, values.email ?? '');
      if (!user) throw new UsageError(`keys create: no user with email ${values.email}`);
      const { key, secret } = await issueKey(db, {
        userId: user.id,
        name: values.name ?? '',
        scopes: scopes as Scope[],
        mode: values.test ? 'test' : 'live',
      });
      // `secret`, as the admin API and the dashboard name the raw key; `key` is its deprecated alias
      // (until 0.2), from when only the CLI printed it.
      if (values.json) process.stdout.write(`${JSON.stringify({ ...key, secret, key: secret })}\n`);
      else {
        process.stdout.write(`${secret}\n`);
        say(
          `key ${key.id} (${key.mode}, ${key.scopes.join(',')}) created for ${user.email}: store it now, it is not shown again`,
        );
      }
    });
    return;
  }
  if (action === 'revoke') {
    const { values } = parseArgs({ args: rest, options: { id: { type: 'string' } } });
    if (!values.id || !/^[0-9a-f-]{36}$/i.test(values.id))
      throw new UsageError('keys revoke: --id must be a key id (uuid)');
    await withDb(config, async (db) => {
      const key = await revokeKey(db, values.id ?? '', new Date());
      if (!key) throw new UsageError(`keys revoke: no key ${values.id}`);
      say(`key ${key.id} revoked at ${key.revoked_at}`);
    });
    return;
  }
  throw new UsageError('usage: keys create … | keys revoke --id ID');
}

class UsageError extends Error {}

commands.users = usersCommand;
commands.keys = keysCommand;
// Loaded when run: most commands need only a part of the code, and `serve`'s primary none of these.
commands.evaluate = async (args, config) => (await import('./cli-evaluate.ts')).evaluateCommand(args, config);
for (const name of ['ingest', 'score', 'unmatched']) {
  commands[name] = async (args, config) => {
    const command = (await import('./cli-ingest.ts')).ingestCommands[name];
    if (!command) throw new Error(`no ingest command ${name}`);
    await command(args, config);
  };
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!name || !command) {
    process.stderr.write(
      name && name !== 'help' && name !== '--help' ? `unknown command: ${name}\n\n${USAGE}` : USAGE,
    );
    return name && name !== 'help' && name !== '--help' ? 2 : 0;
  }
  // A worker forked by `serve --workers N` takes its configuration from the primary, not its environment.
  if (name === 'serve' && cluster.isWorker) {
    await runServeWorker();
    return 0;
  }
  try {
    await command(args, await resolveSecretKey(loadConfig(), name));
    return 0;
  } catch (error) {
    if (
      error instanceof ConfigError ||
      error instanceof DataDirBusyError ||
      error instanceof UsageError ||
      error instanceof ServiceError
    ) {
      say(`market-intel: ${error.message}`);
      return 2;
    }
    if (error instanceof CommandFailed || error instanceof EmbeddedPostgresError) {
      say(`market-intel: ${error.message}`);
      return 1;
    }
    const database = describeDatabaseError(error);
    if (database !== null) {
      say(`market-intel ${name}: stopped: ${database}`);
      return 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      say(`market-intel ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
