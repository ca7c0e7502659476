-- Up Migration
-- Request-rate windows of both APIs (per client address, account, tenant, key), in the layout
-- rate-limiter-flexible's PostgreSQL store expects (as source_rates). UNLOGGED: every limited request updates a
-- row here, and a counter needs no WAL; a commit that wrote only this table does not wait for a WAL flush. A
-- crash empties the table, which only restarts the current windows.
CREATE UNLOGGED TABLE request_rates (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- Down Migration
DROP TABLE request_rates;
