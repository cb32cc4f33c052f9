-- Found by `npm run bench:queries` on 10 M synthetic contracts (docs/EVALUATION.md, "A ticker's window
-- (session 6 of issue 35)").

-- Migration 031's index serves the signals list in a window (`since` with `available_to`) across all
-- tickers; with a ticker the list walked the ticker's own index in score order, testing both bounds on
-- each entry, and for the busiest ticker (LMT, 1.77 M signals at 10 M) a window that matches almost
-- nothing read up to 150 ms of them. This index is migration 031's with the ticker after the engine, so
-- that src/store/signals.ts (windowPage) reads a ticker's matches month of availability by month as it
-- reads the engine's: within a month, the ticker's signals computed since the moment are one range.
CREATE INDEX signals_by_ticker_availability ON signals ((hashtext(engine_name || '@' || engine_version)),
  ticker, (date_trunc('month', available_at AT TIME ZONE 'UTC')), computed_at, available_at, signal_score)
  INCLUDE (id);
