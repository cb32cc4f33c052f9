import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Config, ConfigError } from './config.ts';

/** Where embedded mode keeps the key it generated: beside `postgres/`, so a backup takes both. */
export const SECRET_KEY_FILE = 'secret.key';

/** The commands that decrypt webhook secrets to sign deliveries. */
const SIGNING_COMMANDS = new Set(['serve', 'worker']);
/** `openapi` builds its document on an in-memory database: no data directory to keep a key in. */
const NO_STORAGE_COMMANDS = new Set(['openapi']);

/**
 * SECRET_KEY as `command` runs with it. Set in the environment: that value. Embedded mode without it:
 * the key in DATA_DIR/secret.key, generated on first use, so webhook secrets are encrypted at rest by
 * default. Cluster mode cannot generate one (instances share no disk), so `serve` and `worker` refuse
 * to start without it; other commands never touch webhook secrets and run without.
 */
export async function resolveSecretKey(config: Config, command: string): Promise<Config> {
  if (config.secretKey || NO_STORAGE_COMMANDS.has(command)) return config;
  if (config.databaseUrl) {
    if (!SIGNING_COMMANDS.has(command)) return config;
    throw new ConfigError(
      'SECRET_KEY',
      'not set. With DATABASE_URL (cluster mode) every serve and worker needs the same SECRET_KEY to ' +
        'encrypt and read webhook secrets, e.g. 32 random bytes in base64url',
    );
  }
  return { ...config, secretKey: await embeddedSecretKey(config.dataDir) };
}

async function embeddedSecretKey(dataDir: string): Promise<string> {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  const existing = await readKey(file);
  if (existing !== null) return existing;
  await mkdir(dataDir, { recursive: true });
  await publishNewKey(file);
  const key = await readKey(file);
  if (key === null) throw new Error(`${file} vanished right after it was written`);
  return key;
}

/**
 * Writes the key whole to a private temporary file, then links it into place: `link` fails when the
 * name exists, so of two processes starting at once exactly one key wins, and neither can read the
 * other's file half-written (as it could after an exclusive create followed by a write).
 */
async function publishNewKey(file: string): Promise<void> {
  const staged = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(staged, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(staged, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(staged, { force: true });
  }
}

/** The key in `file`; null when there is no such file. */
async function readKey(file: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const key = text.trim();
  if (!key) {
    throw new ConfigError(
      'SECRET_KEY',
      `${file} is empty: restore it from a backup (webhook secrets sealed with it need it), or set SECRET_KEY`,
    );
  }
  return key;
}
