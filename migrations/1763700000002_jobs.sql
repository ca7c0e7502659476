-- Up Migration
-- The jobs service: tenants and their API keys, jobs, and one task row per (job, domain, source). A task row
-- is also its result row: it is created queued and filled once, so there is exactly one per triple.
CREATE TABLE tenants (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  name text NOT NULL,
  scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
  -- SHA-256 of the whole token: the token itself is never stored.
  token_hash bytea NOT NULL UNIQUE,
  token_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id, created_at);

CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'paused', 'completed', 'failed')),
  domains text[] NOT NULL,
  job_types text[] NOT NULL,
  webhook_url text,
  -- Signs callbacks, so it is kept as is; it is returned only by the create response.
  webhook_secret text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  paused_at timestamptz
);
-- The listing's keyset: (created_at, id) descending within a tenant.
CREATE INDEX jobs_page ON jobs (tenant_id, created_at DESC, id DESC);

CREATE TABLE tasks (
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  -- The domain's index in the job's (normalised) request order.
  position integer NOT NULL,
  domain text NOT NULL,
  source text NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'ok', 'error')),
  attempts integer NOT NULL DEFAULT 0,
  started_at timestamptz,
  fetched_at timestamptz,
  duration_ms integer,
  error_code text,
  error_message text,
  raw jsonb,
  -- Typed columns; each source fills its own (docs/providers.md).
  linkpop bigint,
  domainpop bigint,
  ip_pop bigint,
  classc_pop bigint,
  domain_authority double precision,
  page_authority double precision,
  spam_score double precision,
  linking_domains bigint,
  inbound_links bigint,
  domain_rating double precision,
  backlinks bigint,
  ref_domains bigint,
  dofollow_pct double precision,
  organic_traffic bigint,
  traffic_value double precision,
  snapshot_count bigint,
  first_snapshot_at timestamptz,
  last_snapshot_at timestamptz,
  reachable boolean,
  status_code integer,
  response_ms integer,
  PRIMARY KEY (job_id, position, source)
);
-- Progress counts read only finished rows.
CREATE INDEX tasks_finished ON tasks (job_id, state) WHERE state IN ('ok', 'error');

-- Down Migration
DROP TABLE tasks;
DROP TABLE jobs;
DROP TABLE api_keys;
DROP TABLE tenants;
