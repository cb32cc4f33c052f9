/**
 * A temporary database (`openapi`, benchmarks) leaves nothing behind when closed: run as root, its
 * private temporary DATA_DIR is one PostgreSQL's user cannot enter, so the cluster lives in the state
 * directory, named by a marker; closing removes that cluster as well as the directory.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { openTemporaryDb } from '../../src/store/db.ts';
import { CLUSTER_MARKER } from '../../src/store/embedded-reach.ts';

const parent = mkdtempSync(path.join(tmpdir(), 'mi-temporary-db-'));
after(() => rmSync(parent, { recursive: true, force: true }));

test('closing a temporary database removes its DATA_DIR and the cluster it placed elsewhere', async () => {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = parent;
  let db: Awaited<ReturnType<typeof openTemporaryDb>>;
  try {
    db = await openTemporaryDb();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  const [dataDir] = readdirSync(parent).map((name) => path.join(parent, name));
  assert.ok(dataDir, 'the temporary DATA_DIR is made under TMPDIR');
  const marker = path.join(dataDir, CLUSTER_MARKER);
  const cluster = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : path.join(dataDir, 'postgres');
  if (process.getuid?.() === 0)
    assert.ok(existsSync(marker), 'as root the cluster is placed outside DATA_DIR');
  assert.ok(existsSync(path.join(cluster, 'PG_VERSION')), `${cluster} holds the running cluster`);
  const [row] = await db.query<{ one: number }>('SELECT 1 AS one');
  assert.equal(row?.one, 1);

  await db.close();

  assert.equal(existsSync(dataDir), false, 'DATA_DIR removed');
  assert.equal(existsSync(cluster), false, `${cluster} removed`);
});
