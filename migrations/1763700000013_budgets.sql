-- Up Migration
-- Monthly budgets per tenant and source (docs/api/README.md, "Budgets"), in the source's billing unit.
CREATE TABLE budgets (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  source text NOT NULL,
  monthly_limit numeric NOT NULL CHECK (monthly_limit >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, source)
);

-- What each tenant spent on each billed source in each UTC calendar month (`month`: its first day), added to by
-- every settle that spent anything, budget or not: a budget set mid-month then counts what was spent before it,
-- and checking one costs a primary-key read instead of summing the month's task rows.
CREATE TABLE spending (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  source text NOT NULL,
  month date NOT NULL,
  amount numeric NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (tenant_id, source, month)
);

-- What calls in flight are expected to cost (their estimate), held against a budget from just before the call
-- until the settle that records what they cost. A hold counts while `expires_at` is ahead: the worker's
-- heartbeat moves it on while the entry runs, so the hold of a worker that died lapses by itself.
CREATE TABLE budget_holds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  source text NOT NULL,
  month date NOT NULL,
  amount numeric NOT NULL CHECK (amount >= 0),
  -- The queue entry whose call it covers (renewed by the heartbeat of the worker running it), and its job.
  entry_id uuid,
  job_id uuid,
  expires_at timestamptz NOT NULL,
  FOREIGN KEY (tenant_id, source) REFERENCES budgets ON DELETE CASCADE
);
CREATE INDEX budget_holds_by_budget ON budget_holds (tenant_id, source, month);
CREATE INDEX budget_holds_by_entry ON budget_holds (entry_id);

-- What was spent before this migration, by the rule of GET /v1/usage (a row counts when it was fetched, or when
-- its job ended), and also the spending of attempts whose rows are still unfinished (a retry pending).
INSERT INTO spending (tenant_id, source, month, amount)
SELECT j.tenant_id, t.source, date_trunc('month', coalesce(t.fetched_at, j.finished_at, now()) AT TIME ZONE 'UTC')::date, sum(t.cost)
FROM tasks t JOIN jobs j ON j.id = t.job_id
WHERE t.cost > 0 AND t.cached_from IS NULL
GROUP BY 1, 2, 3;

-- Down Migration
DROP TABLE budget_holds;
DROP TABLE spending;
DROP TABLE budgets;
