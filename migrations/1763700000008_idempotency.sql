-- Up Migration
-- POST /v1/jobs with an Idempotency-Key header: the first request with a key makes the job; the same key again
-- within 24 hours answers that job when the body is the same (`request_hash`), and is refused when it is not.
-- The row is claimed in the transaction that makes the job, so concurrent requests with one key wait on it and
-- make one job; a key whose request failed is free again. The job's row is inserted after the claim in the same
-- transaction, hence the deferred reference.
CREATE TABLE job_idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  request_hash bytea NOT NULL CHECK (length(request_hash) = 32),
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, key)
);

-- Down Migration
DROP TABLE job_idempotency_keys;
