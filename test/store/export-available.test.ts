import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../../src/domain/engines/index.ts';
import type { Db } from '../../src/store/db.ts';
import {
  type EventExportFilter,
  type ExportFormat,
  eventExport,
  openExport,
} from '../../src/store/export.ts';
import { seededDb } from '../support/db.ts';

/** Every line of an export, in order, through its cursor as the API reads it. */
async function exportLines(db: Db, filter: EventExportFilter, format: ExportFormat): Promise<string[]> {
  const cursor = await openExport(db, eventExport(filter, format), { batchRows: 100, idleMs: 60_000 });
  const lines: string[] = [];
  try {
    for (let batch = await cursor.read(); batch.length > 0; batch = await cursor.read()) {
      lines.push(...batch.map((row) => row.line));
    }
  } finally {
    await cursor.close();
  }
  return lines;
}

// The events export with `available_to` reads the two parts of the filter (awarded by the moment's date;
// awarded later yet available by then) from two copies of the contracts merged in the list's order
// (src/store/events.ts). Whatever the formulation, its lines must be exactly those of the export without
// the filter whose contract was available by the moment, in the same order, byte for byte.
describe('the events export available by a moment', () => {
  let db: Db;
  let early: { id: string; moment: string };
  before(async () => {
    db = await seededDb();
    // An award available days before its award date (announced first): the second part's only kind.
    const [row] = await db.query<{ id: string; moment: string }>(
      `UPDATE contracts SET available_at = award_date - interval '3 days'
       WHERE id = (SELECT id FROM contracts WHERE ticker = 'LMT' ORDER BY award_date DESC, id DESC LIMIT 1)
       RETURNING id, to_char(award_date - 2, 'YYYY-MM-DD"T"00:00:00"Z"') AS moment`,
    );
    assert.ok(row);
    early = row;
  });
  after(async () => db.close());

  const base = { engine: ENGINES[0]?.name ?? '', withRationale: false, limit: null };

  test('its lines are the unfiltered export’s lines of the contracts available by then, in order', async () => {
    const [middle] = await db.query<{ moment: string }>(
      `SELECT to_char(percentile_disc(0.5) WITHIN GROUP (ORDER BY available_at) AT TIME ZONE 'UTC',
         'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS moment FROM contracts WHERE ticker IS NOT NULL`,
    );
    assert.ok(middle);
    for (const moment of [early.moment, middle.moment, '2100-01-01T00:00:00Z', '1990-01-01T00:00:00Z']) {
      for (const extra of [
        {},
        { ticker: 'LMT' },
        { source: 'usaspending', availableFrom: '2020-01-01T00:00:00Z' },
      ]) {
        const label = `${moment} ${JSON.stringify(extra)}`;
        const all = await exportLines(db, { ...base, ...extra }, 'ndjson');
        const kept = all.filter((line) => {
          const { contract } = JSON.parse(line) as { contract: { available_at: string } };
          return Date.parse(contract.available_at) <= Date.parse(moment);
        });
        const ndjson = await exportLines(db, { ...base, ...extra, availableTo: moment }, 'ndjson');
        assert.deepEqual(ndjson, kept, label);
        // The CSV export lists the same contracts (its first field), each record as without the filter.
        const ids = new Set(
          kept.map((line) => (JSON.parse(line) as { contract: { id: string } }).contract.id),
        );
        const csvAll = await exportLines(db, { ...base, ...extra }, 'csv');
        const csv = await exportLines(db, { ...base, ...extra, availableTo: moment }, 'csv');
        assert.deepEqual(
          csv,
          csvAll.filter((line) => ids.has(line.slice(0, line.indexOf(',')))),
          label,
        );
        if (moment === early.moment && !('source' in extra)) {
          assert.ok(ids.has(early.id), `${label}: the early award is exported`);
          assert.ok(kept.length > 1, label);
        }
      }
    }
  });
});
