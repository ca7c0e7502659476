-- Up Migration
-- Fresh results reused (docs/api/README.md, "Fresh results reused"). A row copied from an earlier job's result
-- names that job in `cached_from` (the job that made the upstream call; a copy is never copied again) and keeps
-- its `fetched_at`; it cost nothing, which `cost_basis = 'cached'` says. The constraint is re-made NOT VALID, as
-- in 1763700000011, so no existing row is read.
ALTER TABLE tasks ADD COLUMN cached_from uuid;
ALTER TABLE tasks DROP CONSTRAINT tasks_cost_known;
ALTER TABLE tasks ADD CONSTRAINT tasks_cost_known
  CHECK (cost >= 0 AND calls >= 0 AND cost_basis IN ('reported', 'computed', 'cached')) NOT VALID;
-- The freshest fetched result of a (source, domain): what a job with max_age looks up for each of its rows.
CREATE INDEX tasks_fresh ON tasks (source, domain, fetched_at DESC) WHERE state = 'ok' AND cached_from IS NULL;

-- Down Migration
DROP INDEX tasks_fresh;
UPDATE tasks SET cost_basis = 'computed' WHERE cost_basis = 'cached';
ALTER TABLE tasks DROP CONSTRAINT tasks_cost_known;
ALTER TABLE tasks ADD CONSTRAINT tasks_cost_known CHECK (cost >= 0 AND calls >= 0 AND cost_basis IN ('reported', 'computed')) NOT VALID;
ALTER TABLE tasks DROP COLUMN cached_from;
