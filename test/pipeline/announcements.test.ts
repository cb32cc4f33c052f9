/**
 * Announcements through the pipeline: events at the announcement's time, scored the same evening,
 * linked both ways to the award USASpending publishes later, and one signal.created for the two.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ingestAnnouncements } from '../../src/pipeline/announcements.ts';
import { createPipelineContext, type PipelineContext } from '../../src/pipeline/context.ts';
import { ingestAwards } from '../../src/pipeline/ingest.ts';
import { parseAnnouncementsCsv } from '../../src/sources/announcements.ts';
import type { Db } from '../../src/store/db.ts';
import { testConfig } from '../support/app.ts';
import { lockheedAward } from '../support/awards.ts';
import { seededDb } from '../support/db.ts';
import { makeWebhook } from '../webhooks/helpers.ts';

let db: Db;
let ctx: PipelineContext;
before(async () => {
  db = await seededDb();
  // Threshold 0: every new signal is delivered, so a missing or second delivery shows.
  ctx = await createPipelineContext(db, { signalThreshold: 0 });
});
after(() => db.close());

const paragraph = (piid: string, value: string) =>
  `Lockheed Martin Corp., Rotary and Mission Systems, Owego, New York, is being awarded a ${value} firm-fixed-price contract (${piid}) for MH-60R helicopters. Work is expected to be completed in 2021. This contract was not competitively procured. Fiscal 2018 aircraft procurement (Navy) funds in the amount of $12,000,000 are being obligated at time of award. The Naval Air Systems Command, Patuxent River, Maryland, is the contracting activity.`;

const day = (date: string, paragraphs: string[]) =>
  parseAnnouncementsCsv(
    [
      'announcement_date,section,paragraph_no,text',
      ...paragraphs.map((p, i) => `${date},NAVY,${i + 1},"${p.replaceAll('"', '""')}"`),
    ].join('\n'),
  ).paragraphs;

const contract = async (id: string) =>
  (
    await db.query<{
      id: string;
      ticker: string | null;
      source: string;
      announced_at: string | null;
      available_at: string;
      first_seen_at: string;
      linked_id: string | null;
      link_method: string | null;
      contract_value: number;
      award_date: string;
    }>(
      `SELECT id, ticker, source, announced_at, available_at, first_seen_at, linked_id, link_method, contract_value,
         award_date FROM contracts WHERE id = $1`,
      [id],
    )
  )[0];

const deliveriesFor = async (webhookId: string, contractId: string) =>
  (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries
       WHERE webhook_id = $1 AND payload -> 'data' -> 'contract' ->> 'id' = $2`,
      [webhookId, contractId],
    )
  )[0]?.n ?? 0;

describe('announcements', () => {
  const config = testConfig({ WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });

  test('an announcement is an event at 17:00 New York time, scored and delivered that evening', async () => {
    const hook = await makeWebhook(db, config, 'https://93.184.216.34/a');
    const counts = await ingestAnnouncements(
      ctx,
      day('2018-06-14', [paragraph('N00019-18-C-1001', '$500,000,000')]),
    );
    assert.deepEqual(
      { announced: counts.announced, events: counts.events, matched: counts.matched },
      { announced: 1, events: 1, matched: 1 },
    );
    assert.ok(counts.signals_created >= 1);
    const event = await contract('DOD_ANN_2018-06-14_0001_1');
    assert.ok(event);
    assert.equal(event.ticker, 'LMT');
    assert.equal(event.source, 'announcement');
    assert.equal(event.award_date, '2018-06-14');
    assert.equal(event.contract_value, 500_000_000);
    // June: Eastern Daylight Time, UTC−4.
    assert.equal(event.announced_at, '2018-06-14T21:00:00.000Z');
    assert.equal(event.available_at, event.announced_at);
    // One per engine the hook's developer key reaches that scored it: materiality, and announcement-dv
    // (LMT has dollar volume before 2018-06-14; announcement-size has no year of history here).
    assert.equal(await deliveriesFor(hook.webhookId, event.id), 2);
    const [stored] = await db.query<{ kind: string; contract_numbers: string[]; obligated_at_award: string }>(
      `SELECT kind, contract_numbers, obligated_at_award FROM announcements WHERE id = 'DOD_ANN_2018-06-14_0001'`,
    );
    assert.deepEqual(stored, {
      kind: 'award',
      contract_numbers: ['N00019-18-C-1001'],
      obligated_at_award: 12_000_000,
    });

    // Months later USASpending publishes the award: linked both ways, the announcement's time kept, no second delivery.
    const award = lockheedAward('N0001918C1001', { awardDate: '2018-06-12', value: 498_000_000 });
    await ingestAwards(ctx, [award]);
    const linked = await contract(award.id);
    assert.ok(linked);
    assert.equal(linked.linked_id, 'DOD_ANN_2018-06-14_0001_1');
    assert.equal(linked.link_method, 'contract_number_and_ticker');
    assert.equal(linked.announced_at, '2018-06-14T21:00:00.000Z');
    assert.equal(linked.available_at, '2018-06-14T21:00:00.000Z');
    assert.equal((await contract(event.id))?.linked_id, award.id);
    assert.equal(await deliveriesFor(hook.webhookId, award.id), 0, 'the award was announced already');
    assert.ok(
      (await db.query('SELECT 1 FROM signals WHERE contract_id = $1', [award.id])).length > 0,
      'the award is still scored',
    );
  });

  test('an award stored first is delivered; its announcement, arriving later, links, dates it and sends nothing', async () => {
    const hook = await makeWebhook(db, config, 'https://93.184.216.34/b');
    const award = lockheedAward('N0001918C1002', { awardDate: '2018-01-10', value: 300_000_000 });
    await ingestAwards(ctx, [award]);
    assert.equal(await deliveriesFor(hook.webhookId, award.id), 1);
    const before = await contract(award.id);
    // Winter: Eastern Standard Time, UTC−5.
    await ingestAnnouncements(ctx, day('2018-01-11', [paragraph('N00019-18-C-1002', '$300,000,000')]));
    const event = await contract('DOD_ANN_2018-01-11_0001_1');
    assert.equal(event?.announced_at, '2018-01-11T22:00:00.000Z');
    assert.equal(event?.linked_id, award.id);
    assert.equal((await contract(award.id))?.linked_id, event?.id);
    assert.ok(
      before && before.available_at > '2018-01-12',
      'public from when it reached the service, until…',
    );
    assert.equal(
      (await contract(award.id))?.available_at,
      '2018-01-11T22:00:00.000Z',
      '…the announcement shows it was public earlier',
    );
    assert.equal(await deliveriesFor(hook.webhookId, 'DOD_ANN_2018-01-11_0001_1'), 0);
  });

  test('a multiple award is a licence to compete: each holder gets its share of the ceiling × LICENCE_FRACTION; footnotes and fragments make no events; reading again changes nothing', async () => {
    const multi =
      'Alpha Builders, Inc.,* Norfolk, Virginia (N40085-18-D-0001); and Lockheed Martin Corp., Orlando, Florida (N40085-18-D-0002), are each being awarded a firm-fixed-price, indefinite-delivery/indefinite-quantity multiple award contract. The combined maximum dollar value for both contracts is $90,000,000. Naval Facilities Engineering Command Mid-Atlantic, Norfolk, Virginia, is the contracting activity.';
    const paragraphs = day('2018-03-01', [
      multi,
      '*Small business',
      'of Building 102. Bids were solicited via',
    ]);
    const first = await ingestAnnouncements(ctx, paragraphs);
    assert.deepEqual({ announced: first.announced, events: first.events }, { announced: 1, events: 2 });
    const values = await db.query<{ id: string; contract_value: number }>(
      `SELECT id, contract_value FROM contracts WHERE id LIKE 'DOD\\_ANN\\_2018-03-01\\_%' ORDER BY id`,
    );
    assert.deepEqual(
      values.map((v) => [v.id, v.contract_value]),
      [
        // No amount obligated at award on the page: $45 M each of the shared $90 M ceiling × 0.00025.
        ['DOD_ANN_2018-03-01_0001_1', 11_250],
        ['DOD_ANN_2018-03-01_0001_2', 11_250],
      ],
    );
    const again = await ingestAnnouncements(ctx, paragraphs);
    assert.deepEqual({ events: again.events, signals: again.signals_created }, { events: 0, signals: 0 });
    assert.equal(
      (await db.query(`SELECT 1 FROM announcements WHERE announced_on = '2018-03-01'`)).length,
      3,
      'every paragraph is kept, announcing or not',
    );
  });
});

describe('available_at of awards nothing announced', () => {
  test('equals first_seen_at exactly, over the whole ingested demo data and a fresh import', async () => {
    const differing = async () =>
      (
        await db.query<{ unannounced: number; differing: number }>(
          `SELECT count(*)::int AS unannounced,
                  count(*) FILTER (WHERE available_at IS DISTINCT FROM first_seen_at)::int AS differing
             FROM contracts WHERE announced_at IS NULL`,
        )
      )[0];
    const seeded = await differing();
    assert.ok((seeded?.unannounced ?? 0) > 1000, `${seeded?.unannounced} un-announced events`);
    assert.equal(seeded?.differing, 0);
    // A batch large enough for the copy path and a small one for the upsert path.
    const many = Array.from({ length: 300 }, (_, i) => lockheedAward(`AVAILTEST${i}`));
    await ingestAwards(ctx, many);
    await ingestAwards(ctx, [lockheedAward('AVAILTESTONE')]);
    const fresh = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contracts
        WHERE id LIKE 'CONT_AWD_AVAILTEST%' AND available_at = first_seen_at AND announced_at IS NULL`,
    );
    assert.equal(fresh[0]?.n, 301);
    assert.equal((await differing())?.differing, 0);
  });

  test('the migration repairs rows stored before, and leaves announced ones alone', async () => {
    const [plain] = await db.query<{ id: string }>(
      'SELECT id FROM contracts WHERE announced_at IS NULL ORDER BY id LIMIT 1',
    );
    const [announced] = await db.query<{ id: string; available_at: string }>(
      'SELECT id, available_at FROM contracts WHERE announced_at IS NOT NULL ORDER BY id LIMIT 1',
    );
    assert.ok(plain && announced);
    await db.query(
      "UPDATE contracts SET available_at = first_seen_at - interval '3 milliseconds' WHERE id = $1",
      [plain.id],
    );
    const sql = readFileSync(
      new URL('../../migrations/022_available_at_first_seen.sql', import.meta.url),
      'utf8',
    );
    await db.query(sql);
    const [repaired] = await db.query<{ same: boolean }>(
      'SELECT available_at = first_seen_at AS same FROM contracts WHERE id = $1',
      [plain.id],
    );
    assert.equal(repaired?.same, true);
    const [kept] = await db.query<{ available_at: string }>(
      'SELECT available_at FROM contracts WHERE id = $1',
      [announced.id],
    );
    assert.deepEqual(kept?.available_at, announced.available_at);
  });
});
