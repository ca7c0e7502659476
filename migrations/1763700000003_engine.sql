-- Up Migration
-- The jobs engine. Source slots are leases that cap each source's in-flight work across every worker
-- process; a dead worker's slots free themselves when their lease runs out.
CREATE TABLE source_slots (
  source text NOT NULL,
  slot integer NOT NULL,
  holder text,
  lease_until timestamptz,
  PRIMARY KEY (source, slot)
);

-- Request-rate windows per source, in the layout rate-limiter-flexible's PostgreSQL store expects.
CREATE TABLE source_rates (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- "Is any task of this job left?", asked after every write of results.
CREATE INDEX tasks_unfinished ON tasks (job_id) WHERE state IN ('queued', 'running');

-- Down Migration
DROP INDEX tasks_unfinished;
DROP TABLE source_rates;
DROP TABLE source_slots;
