/**
 * The curated identity files (data/identity/*.csv, see data/SOURCES.md): entities, listing eras,
 * dated ownership edges and the recipient names that identify an entity. The checks of their shape
 * and consistency are `checkIdentity`'s (src/domain/identity-check.ts).
 */
import { join } from 'node:path';
import type {
  EdgeRelation,
  EntityKind,
  IdentityData,
  IdentityEntity,
  IdentityName,
  ListingEra,
  OwnershipEdge,
} from '../domain/identity.ts';
import { checkIdentity } from '../domain/identity-check.ts';
import { parseCsv, rowToObject } from './csv.ts';
import { readTextFile } from './files.ts';

export const IDENTITY_FILES = ['entities.csv', 'listings.csv', 'edges.csv', 'names.csv'] as const;

const blank = (v: string | undefined): string | null => {
  const t = (v ?? '').trim();
  return t === '' ? null : t;
};
const text = (v: string | undefined): string => (v ?? '').trim();

async function rows(dir: string, file: string): Promise<Record<string, string>[]> {
  const { header, rows: records } = parseCsv(await readTextFile(join(dir, file)));
  return records.map((r) => rowToObject(header, r.fields));
}

export function toEntity(r: Record<string, string>): IdentityEntity {
  return { id: text(r.id), name: text(r.name), kind: text(r.kind) as EntityKind, cik: blank(r.cik) };
}

export function toListing(r: Record<string, string>): ListingEra {
  return {
    entityId: text(r.entity_id),
    ticker: text(r.ticker),
    exchange: text(r.exchange),
    from: blank(r.from),
    to: blank(r.to),
    series: blank(r.series),
    source: text(r.source_url),
  };
}

export function toEdge(r: Record<string, string>): OwnershipEdge {
  const share = blank(r.share);
  return {
    child: text(r.child),
    parent: text(r.parent),
    relation: text(r.relation) as EdgeRelation,
    from: blank(r.from),
    to: blank(r.to),
    share: share === null ? null : Number(share),
    source: text(r.source_url),
  };
}

export function toName(r: Record<string, string>): IdentityName {
  return {
    entityId: text(r.entity_id),
    name: text(r.name),
    match: text(r.match) as IdentityName['match'],
    from: blank(r.from),
    to: blank(r.to),
  };
}

/** Reads `<dataDir>/identity/` and refuses data that contradicts itself (see `checkIdentity`). */
export async function loadIdentityFiles(dataDir: string): Promise<IdentityData> {
  const data = await readIdentityFiles(dataDir);
  const problems = checkIdentity(data);
  if (problems.length > 0) {
    throw new Error(
      `identity data in ${join(dataDir, 'identity')} is inconsistent:\n  ${problems.join('\n  ')}`,
    );
  }
  return data;
}

/** Reads `<dataDir>/identity/` as it is. */
export async function readIdentityFiles(dataDir: string): Promise<IdentityData> {
  const dir = join(dataDir, 'identity');
  const [entities, listings, edges, names] = await Promise.all(IDENTITY_FILES.map((f) => rows(dir, f)));
  return {
    entities: (entities ?? []).map(toEntity),
    listings: (listings ?? []).map(toListing),
    edges: (edges ?? []).map(toEdge),
    names: (names ?? []).map(toName),
  };
}
