/** The identity tables (migration 023): replaced whole from data/identity, read whole by the resolver. */
import type { EdgeRelation, EntityKind, IdentityData } from '../domain/identity.ts';
import type { Db, Queryable } from './db.ts';

/** Replaces the stored identity data with `data` in one transaction. */
export async function replaceIdentity(db: Db, data: IdentityData): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('DELETE FROM identity_names');
    await tx.query('DELETE FROM identity_edges');
    await tx.query('DELETE FROM identity_listings');
    await tx.query('DELETE FROM identity_entities');
    const e = data.entities;
    await tx.query(
      `INSERT INTO identity_entities (id, name, kind, cik)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [e.map((x) => x.id), e.map((x) => x.name), e.map((x) => x.kind), e.map((x) => x.cik)],
    );
    const l = data.listings;
    await tx.query(
      `INSERT INTO identity_listings (entity_id, ticker, exchange, valid_from, valid_to, series, source)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::date[], $6::text[], $7::text[])`,
      [
        l.map((x) => x.entityId),
        l.map((x) => x.ticker),
        l.map((x) => x.exchange),
        l.map((x) => x.from),
        l.map((x) => x.to),
        l.map((x) => x.series),
        l.map((x) => x.source),
      ],
    );
    const g = data.edges;
    await tx.query(
      `INSERT INTO identity_edges (child, parent, relation, valid_from, valid_to, share, source)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::date[], $6::float8[], $7::text[])`,
      [
        g.map((x) => x.child),
        g.map((x) => x.parent),
        g.map((x) => x.relation),
        g.map((x) => x.from),
        g.map((x) => x.to),
        g.map((x) => x.share),
        g.map((x) => x.source),
      ],
    );
    const n = data.names;
    await tx.query(
      `INSERT INTO identity_names (entity_id, name, match, valid_from, valid_to)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::date[])`,
      [
        n.map((x) => x.entityId),
        n.map((x) => x.name),
        n.map((x) => x.match),
        n.map((x) => x.from),
        n.map((x) => x.to),
      ],
    );
  });
}

const d = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;

/** The stored identity data, in a stable order (the resolver version is a digest of it). */
export async function loadIdentity(db: Queryable): Promise<IdentityData> {
  const [entities, listings, edges, names] = await Promise.all([
    db.query<{ id: string; name: string; kind: EntityKind; cik: string | null }>(
      'SELECT id, name, kind, cik FROM identity_entities ORDER BY id',
    ),
    db.query<IdentityData['listings'][number]>(
      `SELECT entity_id AS "entityId", ticker, exchange, ${d('valid_from')} AS "from", ${d('valid_to')} AS "to", series, source
       FROM identity_listings ORDER BY entity_id, valid_from NULLS FIRST, ticker`,
    ),
    db.query<{
      child: string;
      parent: string;
      relation: EdgeRelation;
      from: string | null;
      to: string | null;
      share: number | null;
      source: string;
    }>(
      `SELECT child, parent, relation, ${d('valid_from')} AS "from", ${d('valid_to')} AS "to", share, source
       FROM identity_edges ORDER BY child, valid_from NULLS FIRST, parent`,
    ),
    db.query<IdentityData['names'][number]>(
      `SELECT entity_id AS "entityId", name, match, ${d('valid_from')} AS "from", ${d('valid_to')} AS "to"
       FROM identity_names ORDER BY entity_id, name, valid_from NULLS FIRST`,
    ),
  ]);
  return { entities, listings, edges, names };
}

/** The version stored contracts were last resolved with; null before the first resolution. */
export async function storedResolverVersion(db: Queryable): Promise<string | null> {
  const rows = await db.query<{ version: string }>('SELECT version FROM resolver_state');
  return rows[0]?.version ?? null;
}

export async function saveResolverVersion(db: Queryable, version: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO resolver_state (singleton, version, updated_at) VALUES (true, $1, $2)
     ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`,
    [version, now.toISOString()],
  );
}
