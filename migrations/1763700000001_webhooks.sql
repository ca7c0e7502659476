-- Up Migration
-- Durable webhooks of both services. A delivery is written in the same transaction as the event that causes
-- it; its body is the exact bytes every attempt sends. The signing secret stays in the service's own row
-- (a job, an inbox) and is found through secret_ref when an attempt is made.
CREATE TABLE deliveries (
  id uuid PRIMARY KEY,
  service text NOT NULL CHECK (service IN ('jobs', 'mail')),
  event text NOT NULL,
  subject text NOT NULL,
  url text NOT NULL,
  body bytea NOT NULL,
  secret_ref text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dropped', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  next_attempt_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX deliveries_by_subject ON deliveries (service, subject, created_at);

CREATE TABLE delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'dropped', 'failed')),
  PRIMARY KEY (delivery_id, attempt)
);

-- Down Migration
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
