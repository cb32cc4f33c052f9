import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { linkAnnouncements } from '../../src/store/announcements.ts';
import type { Db } from '../../src/store/db.ts';
import { seededDb } from '../support/db.ts';

let db: Db;

before(async () => {
  db = await seededDb();
});
after(async () => {
  await db.close();
});

/** A plan node of EXPLAIN (FORMAT JSON), as much of it as the test reads. */
interface PlanNode {
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** The statements `linkAnnouncements(ids)` sends, each with the tables its plan reads. */
async function linkStatements(ids: string[]): Promise<{ text: string; tables: string[] }[]> {
  const sent: { text: string; params?: readonly unknown[] }[] = [];
  await db.transaction((tx) =>
    linkAnnouncements(
      {
        query: (text, params) => {
          sent.push({ text, params });
          return tx.query(text, params);
        },
      },
      ids,
    ),
  );
  const statements: { text: string; tables: string[] }[] = [];
  for (const { text, params } of sent) {
    const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) ${text}`,
      params,
    );
    const tables = new Set<string>();
    const visit = (node: PlanNode) => {
      if (node['Relation Name']) tables.add(node['Relation Name']);
      for (const child of node.Plans ?? []) visit(child);
    };
    for (const plan of row?.['QUERY PLAN'] ?? []) visit(plan.Plan);
    statements.push({ text, tables: [...tables].sort() });
  }
  return statements;
}

describe('the announcement link query of an import batch', () => {
  test('a batch of awards no announcement names costs one statement, which reads no contract', async () => {
    const [stored] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM announcement_piids');
    assert.ok((stored?.n ?? 0) > 0, 'the seeded data holds announcement events with contract numbers');
    const awards = (
      await db.query<{ id: string }>(
        `SELECT c.id FROM contracts c WHERE c.id LIKE 'CONT\\_AWD\\_%' AND NOT EXISTS (
           SELECT 1 FROM announcement_piids p WHERE p.piid = split_part(c.id, '_', 3))
         ORDER BY c.id LIMIT 500`,
      )
    ).map((r) => r.id);
    assert.equal(awards.length, 500);
    // Whatever the indexes: a large import drops the awards' PIID index while it runs.
    await db.exec('DROP INDEX contracts_piid');
    try {
      const statements = await linkStatements(awards);
      assert.deepEqual(
        statements.map((s) => s.tables),
        [['announcement_piids']],
        statements.map((s) => s.text).join('\n'),
      );
    } finally {
      await db.exec(
        `CREATE INDEX contracts_piid ON contracts ((split_part(id, '_', 3))) WHERE id LIKE 'CONT\\_AWD\\_%'`,
      );
    }
  });

  test('links an event and the award naming its contract number, from either side', async () => {
    const [event] = await db.query<{ event_id: string; piid: string }>(
      `SELECT p.event_id, p.piid FROM announcement_piids p JOIN contracts e ON e.id = p.event_id
       JOIN announcements x ON x.id = substring(e.id from '^(DOD_ANN_\\d{4}-\\d{2}-\\d{2}_\\d{4})')
       WHERE x.kind IN ('award', 'order') AND p.piid ~ '^[A-Z0-9]+$'
         -- The only event naming its number, and no award names any of the event's numbers yet.
         AND (SELECT count(*) FROM announcement_piids r WHERE r.piid = p.piid) = 1
         AND NOT EXISTS (SELECT 1 FROM announcement_piids q JOIN contracts a ON split_part(a.id, '_', 3) = q.piid
           AND a.id LIKE 'CONT\\_AWD\\_%' WHERE q.event_id = p.event_id)
       ORDER BY 1 LIMIT 1`,
    );
    assert.ok(event);
    const award = `CONT_AWD_${event.piid}_9700_-NONE-_-NONE-`;
    await db.query(
      `INSERT INTO contracts (id, recipient_name, award_date, contract_value, awarding_agency,
         nlp_classification, match_confidence, match_method)
       VALUES ($1, 'SOMEONE ELSE LLC', '2019-01-01', 1000, 'Department of Defense', 'other', 0, 'none')`,
      [award],
    );
    try {
      // From the award's side (a USASpending batch), then again from the event's (an announcement batch).
      assert.equal(await db.transaction((tx) => linkAnnouncements(tx, [award])), 1);
      const linked = async () =>
        db.query<{ id: string; linked_id: string }>(
          'SELECT id, linked_id FROM contracts WHERE id = ANY($1::text[]) ORDER BY id',
          [[award, event.event_id]],
        );
      assert.deepEqual(await linked(), [
        { id: award, linked_id: event.event_id },
        { id: event.event_id, linked_id: award },
      ]);
      await db.query('UPDATE contracts SET linked_id = NULL WHERE id = ANY($1::text[])', [
        [award, event.event_id],
      ]);
      assert.equal(await db.transaction((tx) => linkAnnouncements(tx, [event.event_id])), 1);
      assert.deepEqual(await linked(), [
        { id: award, linked_id: event.event_id },
        { id: event.event_id, linked_id: award },
      ]);
    } finally {
      await db.query('DELETE FROM contracts WHERE id = $1', [award]);
    }
  });
});
