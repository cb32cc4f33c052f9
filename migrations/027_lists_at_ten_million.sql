-- Found by `npm run bench:queries` on 10 M synthetic contracts (docs/EVALUATION.md, "Ten million
-- contracts (issue 35)").

-- A company's totals — its contract count and value, and both by awarding agency and by classification
-- (GET /companies/{ticker} and the dashboard's company page) — were summed from the heap, a random page
-- per contract: 2.2 s for the busiest ticker's 1.3 M contracts. The ticker's list index now carries the
-- three columns they sum, so they are read from the index alone (an index-only scan).
DROP INDEX contracts_by_ticker;
CREATE INDEX contracts_by_ticker ON contracts (ticker, award_date DESC, id DESC)
  INCLUDE (contract_value, awarding_agency, nlp_classification) WHERE ticker IS NOT NULL;

-- `available_to` (what the public could know by a moment) is served in two parts (src/store/events.ts):
-- the events awarded on or before that moment's UTC date, from the list's usual indexes starting at that
-- date instead of walking every newer award first (3 s and more at 10 M), and the few awarded later yet
-- available by then — an award announced, or first seen, before its own award date — from this index
-- of exactly those events.
CREATE INDEX contracts_available_early ON contracts (award_date DESC, id DESC)
  WHERE ticker IS NOT NULL AND (available_at AT TIME ZONE 'UTC')::date < award_date;
