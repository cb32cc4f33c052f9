-- Found by `npm run bench:queries` on 10 M synthetic contracts (docs/EVALUATION.md, "Ten million
-- contracts (issue 35)").

-- The events list's indexes also carry, after their order's (award_date, id), the filters their
-- walk used to test on the heap: available_at and source, and the two of agency and classification
-- an index does not lead with. A key column after the unique id changes no order, but a condition on
-- it is tested on the index entry, so a walk past events that do not match — the other source, a
-- later availability, another agency — no longer reads a random heap page for each (a page that
-- matches nothing read the agency's every event from the heap: 0.5–3 s at 10 M).
-- The ticker's index also carries (INCLUDE) what a company's totals sum — its contract count and
-- value, by awarding agency and by classification (GET /companies/{ticker}, the dashboard's company
-- page) — which were summed from the heap, a random page per contract: 2.2 s for the busiest ticker's
-- 1.3 M contracts; now an index-only scan.
DROP INDEX contracts_events;
CREATE INDEX contracts_events ON contracts (award_date DESC, id DESC, available_at, source)
  WHERE ticker IS NOT NULL;
DROP INDEX contracts_by_ticker;
CREATE INDEX contracts_by_ticker ON contracts (ticker, award_date DESC, id DESC, available_at, source,
  nlp_classification, lower(awarding_agency)) INCLUDE (contract_value, awarding_agency) WHERE ticker IS NOT NULL;
DROP INDEX contracts_by_agency;
CREATE INDEX contracts_by_agency ON contracts (lower(awarding_agency), award_date DESC, id DESC, available_at,
  source, nlp_classification) WHERE ticker IS NOT NULL;
DROP INDEX contracts_by_class;
CREATE INDEX contracts_by_class ON contracts (nlp_classification, award_date DESC, id DESC, available_at, source,
  lower(awarding_agency)) WHERE ticker IS NOT NULL;
DROP INDEX contracts_by_ticker_class;
CREATE INDEX contracts_by_ticker_class ON contracts (ticker, nlp_classification, award_date DESC, id DESC,
  available_at, source, lower(awarding_agency)) WHERE ticker IS NOT NULL;

-- `available_to` (what the public could know by a moment) is served in two parts (src/store/events.ts):
-- the events awarded on or before that moment's UTC date, from the list's usual indexes starting at that
-- date instead of walking every newer award first (3 s and more at 10 M), and the few awarded later yet
-- available by then — an award announced, or first seen, before its own award date — from this index
-- of exactly those events. It carries the same trailing keys as the list indexes: without them the
-- planner, which cannot estimate how few events the predicate keeps, preferred contracts_events for
-- this part too and walked every later award (0.5–1 s).
CREATE INDEX contracts_available_early ON contracts (award_date DESC, id DESC, available_at, source,
  nlp_classification, lower(awarding_agency))
  WHERE ticker IS NOT NULL AND (available_at AT TIME ZONE 'UTC')::date < award_date;
