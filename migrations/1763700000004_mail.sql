-- Up Migration
-- The mail service's core: domains, inboxes and their messages.

-- `ordinal` keeps the order domains were configured in: anonymous generation without a domain uses the first
-- public one.
CREATE TABLE mail_domains (
  name text PRIMARY KEY,
  is_public boolean NOT NULL DEFAULT true,
  tier_required integer NOT NULL DEFAULT 0 CHECK (tier_required >= 0),
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- An address belongs to one inbox row at a time (unique): an expired inbox's row is deleted before its address
-- is handed out again. `expires_at` null is a persistent inbox.
CREATE TABLE inboxes (
  id uuid PRIMARY KEY,
  address text NOT NULL UNIQUE,
  domain text NOT NULL REFERENCES mail_domains (name),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  account_id text,
  label text,
  webhook_url text,
  webhook_secret text,
  CHECK (address = lower(address))
);
CREATE INDEX inboxes_expiry ON inboxes (expires_at) WHERE expires_at IS NOT NULL;

-- One row per (accepted message, recipient inbox). Counters are never stored: they are counted from these rows,
-- so they cannot drift. `otp` and `links` are written by extraction (null: not extracted).
CREATE TABLE messages (
  id uuid PRIMARY KEY,
  inbox_id uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  received_at timestamptz NOT NULL DEFAULT now(),
  envelope_from text NOT NULL,
  to_address text NOT NULL,
  from_address text NOT NULL,
  subject text NOT NULL,
  body_text text,
  body_html text,
  headers jsonb NOT NULL,
  attachments jsonb NOT NULL,
  attachment_count integer NOT NULL,
  raw_size integer NOT NULL,
  is_read boolean NOT NULL DEFAULT false,
  otp text,
  links jsonb,
  link_count integer NOT NULL DEFAULT 0,
  parse_error text,
  raw bytea NOT NULL
);
-- The bytes as received, never compressed: PostgreSQL's compression costs CPU on every insert and most mail is
-- small; large values still move out of line (TOAST), so lists never read them.
ALTER TABLE messages ALTER COLUMN raw SET STORAGE EXTERNAL;
CREATE INDEX messages_inbox ON messages (inbox_id, received_at DESC, id DESC);

-- Down Migration
DROP TABLE messages;
DROP TABLE inboxes;
DROP TABLE mail_domains;
