-- Found by `npm run bench:explain` on 1 M contracts: ticker + classification at a deep offset fell back
-- to a parallel sequential scan, and the planner guessed 0.5 % for an agency filter that matched half
-- the table (expression statistics are not gathered for partial indexes).
CREATE INDEX contracts_by_ticker_class ON contracts (ticker, nlp_classification, award_date DESC, id DESC)
  WHERE ticker IS NOT NULL;
CREATE STATISTICS contracts_agency_stats ON (lower(awarding_agency)) FROM contracts;
