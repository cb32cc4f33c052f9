import { openDb } from '../src/store/db.ts';
import { eventsJson } from '../src/store/events.ts';
import { signalsJson } from '../src/store/signals.ts';

const db = await openDb({ databaseUrl: process.env.DATABASE_URL as string, dataDir: '' });
const filter = JSON.parse(process.argv[3] ?? '{}');
const which = process.argv[2];
const q = {
  query: async (text: string, params: unknown[]) => {
    const r = await db.query<Record<string, unknown>>(
      `EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ${text}`,
      params,
    );
    console.log(r.map((x) => x['QUERY PLAN']).join('\n'));
    return [];
  },
};
if (which === 'events')
  await eventsJson(q as never, {
    engine: 'materiality',
    withRationale: false,
    limit: 50,
    offset: 0,
    ...filter,
  });
else
  await signalsJson(q as never, {
    engine: 'materiality',
    engineVersion: '2.0.0',
    withRationale: false,
    limit: 50,
    offset: 0,
    ...filter,
  });
await db.close();
