-- Up Migration
-- What each task row's upstream requests cost (docs/providers.md, "Cost"): `cost` in the unit of the row's
-- source (its descriptor's billing says which), `cost_basis` how it is known ('reported' by the provider for
-- every request, else 'computed' from the published price) and `calls`, the requests made. A batch call is
-- shared among its rows, and a retried row adds each attempt's spending, so the rows add up to what was spent.
-- Rows finished before this migration keep NULL: what they cost was never recorded, and 0 would be a guess.
-- The columns are added without a default and then given one, so existing rows are not rewritten.
ALTER TABLE tasks ADD COLUMN cost numeric, ADD COLUMN cost_basis text, ADD COLUMN calls integer;
ALTER TABLE tasks ALTER COLUMN cost SET DEFAULT 0, ALTER COLUMN cost_basis SET DEFAULT 'computed', ALTER COLUMN calls SET DEFAULT 0;
-- NOT VALID: checked for every row written from now on without scanning the rows already there (all NULL).
ALTER TABLE tasks ADD CONSTRAINT tasks_cost_known CHECK (cost >= 0 AND calls >= 0 AND cost_basis IN ('reported', 'computed')) NOT VALID;

-- Down Migration
ALTER TABLE tasks DROP CONSTRAINT tasks_cost_known, DROP COLUMN calls, DROP COLUMN cost_basis, DROP COLUMN cost;
