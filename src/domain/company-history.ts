/**
 * A ticker's corporate history from the identity data: the registrant behind it, its listing eras (a
 * rename keeps the registrant: UTX became RTX), who it took over (predecessors and acquisitions, with
 * dates) and who took it over (its successor owners).
 */
import type { IdentityModel, OwnershipEdge } from './identity.ts';

export interface HistoryListing {
  ticker: string;
  exchange: string;
  from: string | null;
  to: string | null;
  series_ticker: string | null;
}

export interface HistoryEvent {
  entity_id: string;
  name: string;
  relation: string;
  from: string | null;
  to: string | null;
  share: number | null;
  source: string;
}

export interface CompanyHistory {
  entity_id: string;
  name: string;
  cik: string | null;
  listings: HistoryListing[];
  /** What became part of it, oldest first: acquisitions, mergers, subsidiaries, joint venture stakes. */
  acquisitions: HistoryEvent[];
  /** Who owned it, oldest first (its successor when it was taken over, merged or taken private). */
  owners: HistoryEvent[];
}

/**
 * The history of the registrant that trades as `ticker` today, or with `delisted`, of the one that last
 * traded as it; null when the data does not know it. A listed company is never given the history of a
 * delisted one that once used its ticker (today's GM is not the General Motors of 1908–2009).
 */
export function companyHistory(
  model: IdentityModel,
  ticker: string,
  delisted = false,
): CompanyHistory | null {
  const entity = delisted ? model.entityOfTicker(ticker) : model.currentEntityOfTicker(ticker);
  if (entity === undefined) return null;
  const name = (id: string) => model.entities.get(id)?.name ?? id;
  const event = (edge: OwnershipEdge, id: string): HistoryEvent => ({
    entity_id: id,
    name: name(id),
    relation: edge.relation,
    from: edge.from,
    to: edge.to,
    share: edge.share,
    source: edge.source,
  });
  return {
    entity_id: entity.id,
    name: entity.name,
    cik: entity.cik,
    listings: model.listings(entity.id).map((l) => ({
      ticker: l.ticker,
      exchange: l.exchange,
      from: l.from,
      to: l.to,
      series_ticker: l.series,
    })),
    acquisitions: byDate(model.childEdges(entity.id).map((e) => event(e, e.child))),
    owners: byDate(model.parentEdges(entity.id).map((e) => event(e, e.parent))),
  };
}

const byDate = (events: HistoryEvent[]): HistoryEvent[] =>
  events.sort((a, b) => (a.from ?? '').localeCompare(b.from ?? '') || a.entity_id.localeCompare(b.entity_id));
