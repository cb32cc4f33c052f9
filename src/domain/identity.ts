/**
 * Point-in-time company identity: who owned a recipient on a given day, and under which ticker that
 * owner traded then. Entities are SEC registrants (kept through renames: United Technologies is the
 * registrant that trades as RTX today), their operating units, joint ventures, foreign parents and
 * private owners; ownership edges and listing eras carry dates. Every span is [from, to): an event
 * takes effect on its closing date, so an award made that day belongs to the new owner.
 */

export const ENTITY_KINDS = ['registrant', 'unit', 'joint_venture', 'foreign', 'private'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export const EDGE_RELATIONS = [
  'subsidiary',
  'acquired',
  'merged',
  'spun_off',
  'taken_private',
  'joint_venture',
] as const;
export type EdgeRelation = (typeof EDGE_RELATIONS)[number];

/** Why a resolution has no ticker. */
export const NO_TICKER_REASONS = [
  'private',
  'foreign',
  'not_yet_public',
  'delisted',
  'joint_venture',
  'owner_unknown',
] as const;
export type NoTickerReason = (typeof NO_TICKER_REASONS)[number];

export interface IdentityEntity {
  id: string;
  name: string;
  kind: EntityKind;
  cik: string | null;
}

export interface ListingEra {
  entityId: string;
  ticker: string;
  exchange: string;
  /** Inclusive; null: since before the data begins. */
  from: string | null;
  /** Exclusive; null: still listed. */
  to: string | null;
  /** The shipped price series holding this era's prices (RTX's file holds United Technologies' past). */
  series: string | null;
  source: string;
}

export interface OwnershipEdge {
  child: string;
  parent: string;
  relation: EdgeRelation;
  from: string | null;
  to: string | null;
  /** A joint venture parent's share, when known. */
  share: number | null;
  source: string;
}

export interface IdentityName {
  entityId: string;
  name: string;
  /** exact: the whole name; prefix: also names that start with it ("SIKORSKY SUPPORT SERVICES"). */
  match: 'exact' | 'prefix';
  from: string | null;
  to: string | null;
}

export interface IdentityData {
  entities: IdentityEntity[];
  listings: ListingEra[];
  edges: OwnershipEdge[];
  names: IdentityName[];
}

/** A joint venture's parent, resolved on the same date. */
export interface JointVentureParent {
  entity_id: string;
  name: string;
  share: number | null;
  ticker: string | null;
}

export interface OwnerAtDate {
  /** The entity the name or ticker identified. */
  entity: IdentityEntity;
  /** Whose stock carried it that day: the first listed entity up the ownership chain, else the top owner. */
  owner: IdentityEntity;
  ticker: string | null;
  series: string | null;
  reason: NoTickerReason | null;
  parents: JointVentureParent[];
}

export const inSpan = (date: string, from: string | null, to: string | null): boolean =>
  (from === null || from <= date) && (to === null || date < to);

/** Ownership is at most this deep; a longer chain is a cycle in the data (the validation test catches it). */
const MAX_DEPTH = 12;

export class IdentityModel {
  readonly entities = new Map<string, IdentityEntity>();
  private readonly listingsOf = new Map<string, ListingEra[]>();
  private readonly parentsOf = new Map<string, OwnershipEdge[]>();
  private readonly childrenOf = new Map<string, OwnershipEdge[]>();
  /** Ticker → the registrant that trades (or traded last) under it. */
  private readonly byTicker = new Map<string, ListingEra>();

  constructor(readonly data: IdentityData) {
    for (const e of data.entities) this.entities.set(e.id, e);
    for (const l of data.listings) {
      push(this.listingsOf, l.entityId, l);
      const seen = this.byTicker.get(l.ticker);
      if (seen === undefined || (seen.to !== null && (l.to === null || l.to > seen.to)))
        this.byTicker.set(l.ticker, l);
    }
    for (const edge of data.edges) {
      push(this.parentsOf, edge.child, edge);
      push(this.childrenOf, edge.parent, edge);
    }
  }

  listings(entityId: string): readonly ListingEra[] {
    return this.listingsOf.get(entityId) ?? [];
  }

  parentEdges(entityId: string): readonly OwnershipEdge[] {
    return this.parentsOf.get(entityId) ?? [];
  }

  childEdges(entityId: string): readonly OwnershipEdge[] {
    return this.childrenOf.get(entityId) ?? [];
  }

  /** The registrant listed under `ticker` now, or last when it no longer trades. */
  entityOfTicker(ticker: string): IdentityEntity | undefined {
    const era = this.byTicker.get(ticker);
    return era === undefined ? undefined : this.entities.get(era.entityId);
  }

  /**
   * The registrant trading under `ticker` today. A ticker whose era in this data has ended belongs today
   * to someone else, if anyone (MD was McDonnell Douglas's and is now another company's; GM was the old
   * General Motors'): the undated resolver's tickers, which are today's, are never taken to it.
   */
  currentEntityOfTicker(ticker: string): IdentityEntity | undefined {
    const era = this.byTicker.get(ticker);
    return era === undefined || era.to !== null ? undefined : this.entities.get(era.entityId);
  }

  listingAt(entityId: string, date: string): ListingEra | undefined {
    return this.listings(entityId).find((l) => inSpan(date, l.from, l.to));
  }

  /** Who carried `entityId` on `date`, and under which ticker then. */
  ownerAt(entityId: string, date: string): OwnerAtDate | null {
    const entity = this.entities.get(entityId);
    if (entity === undefined) return null;
    let current = entity;
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const listing = this.listingAt(current.id, date);
      if (listing !== undefined) {
        return {
          entity,
          owner: current,
          ticker: listing.ticker,
          series: listing.series,
          reason: null,
          parents: [],
        };
      }
      const owners = this.parentEdges(current.id).filter((e) => inSpan(date, e.from, e.to));
      const controlling = owners.filter((e) => e.share === null || e.share > 0.5);
      if (owners.length > 1 || (owners.length === 1 && controlling.length === 0)) {
        if (controlling.length === 1 && controlling[0] !== undefined) {
          current = this.entities.get(controlling[0].parent) ?? current;
          continue;
        }
        return this.jointVenture(entity, current, owners, date, depth);
      }
      const next = owners[0] === undefined ? undefined : this.entities.get(owners[0].parent);
      if (next === undefined) return this.unlisted(entity, current, date);
      current = next;
    }
    return { entity, owner: current, ticker: null, series: null, reason: 'owner_unknown', parents: [] };
  }

  private jointVenture(
    entity: IdentityEntity,
    venture: IdentityEntity,
    owners: readonly OwnershipEdge[],
    date: string,
    depth: number,
  ): OwnerAtDate {
    const parents = owners.map((edge) => {
      const parent = depth < MAX_DEPTH ? this.ownerAt(edge.parent, date) : null;
      return {
        entity_id: edge.parent,
        name: this.entities.get(edge.parent)?.name ?? edge.parent,
        share: edge.share,
        ticker: parent?.ticker ?? null,
      };
    });
    return { entity, owner: venture, ticker: null, series: null, reason: 'joint_venture', parents };
  }

  /**
   * No listing and no owner that day: private, foreign, or a registrant outside its listed years.
   * Built whole, not spread (`{ ...base, reason }`): see dated-resolver.ts's `fromOwner`.
   */
  private unlisted(entity: IdentityEntity, top: IdentityEntity, date: string): OwnerAtDate {
    return {
      entity,
      owner: top,
      ticker: null,
      series: null,
      reason: this.unlistedReason(top, date),
      parents: [],
    };
  }

  private unlistedReason(top: IdentityEntity, date: string): NoTickerReason {
    if (top.kind === 'private') return 'private';
    if (top.kind === 'foreign') return 'foreign';
    const eras = this.listings(top.id);
    if (eras.some((l) => l.from !== null && l.from > date)) return 'not_yet_public';
    if (eras.some((l) => l.to !== null && l.to <= date)) return 'delisted';
    return top.kind === 'registrant' ? 'private' : 'owner_unknown';
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
