import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { seed } from './pipeline/seed.ts';
import { serve } from './server.ts';
import { type Db, openDb, openMemoryDb } from './store/db.ts';
import { DataDirBusyError } from './store/dir-lock.ts';
import { migrate } from './store/migrate.ts';

const USAGE = `usage: market-intel <command> [options]

commands:
  serve [--port N] [--no-seed]   migrate, seed an empty database, serve the API
  migrate                        apply pending SQL migrations
  seed                           load the shipped demo data (idempotent)
  openapi [--write FILE]         print (or write) the OpenAPI 3.1 document
`;

const say = (line: string) => process.stderr.write(`${line}\n`);

async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb(config);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const commands: Record<string, (args: string[], config: Config) => Promise<void>> = {
  async serve(args, config) {
    const { values } = parseArgs({
      args,
      options: { port: { type: 'string' }, 'no-seed': { type: 'boolean' } },
    });
    const port = values.port === undefined ? config.port : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new ConfigError('--port', 'expected 0..65535');
    await serve({ ...config, port }, { seedIfEmpty: !values['no-seed'] });
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
      await seed(db, { signalThreshold: config.signalThreshold, log: say });
    });
  },
  async openapi(args, config) {
    const { values } = parseArgs({ args, options: { write: { type: 'string' } } });
    const db = await openMemoryDb();
    try {
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

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(
      name && name !== 'help' && name !== '--help' ? `unknown command: ${name}\n\n${USAGE}` : USAGE,
    );
    return name && name !== 'help' && name !== '--help' ? 2 : 0;
  }
  try {
    await command(args, loadConfig());
    return 0;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataDirBusyError) {
      say(`market-intel: ${error.message}`);
      return 2;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      say(`market-intel ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
