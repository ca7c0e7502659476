-- Up Migration
-- The mail service's Developer tier: accounts (known from the JWTs they present) and their API keys.

-- An account is written when one of its JWTs is used, so its API keys can act with its latest known tier.
-- `tier_issued_at` is the `iat` of the token that tier came from (the time of use when a token has none): a
-- token issued earlier, presented later, does not undo a newer tier.
CREATE TABLE accounts (
  id text PRIMARY KEY CHECK (id <> '' AND length(id) <= 255),
  tier integer NOT NULL CHECK (tier >= 0),
  tier_issued_at timestamptz NOT NULL,
  first_seen timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Named apart from the jobs service's `api_keys`: another service, another kind of owner. The key itself is
-- never stored: only its SHA-256 and its public `key_prefix`, by which a presented key is found.
CREATE TABLE mail_api_keys (
  id uuid PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  key_prefix text NOT NULL UNIQUE CHECK (key_prefix ~ '^[a-z0-9]{8}$'),
  key_hash bytea NOT NULL CHECK (length(key_hash) = 32),
  label text CHECK (length(label) <= 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX mail_api_keys_by_account ON mail_api_keys (account_id, created_at);

-- A programmatic inbox names the account that made it (anonymous ones: null).
ALTER TABLE inboxes ADD CONSTRAINT inboxes_account_fk FOREIGN KEY (account_id) REFERENCES accounts (id);

-- Down Migration
ALTER TABLE inboxes DROP CONSTRAINT inboxes_account_fk;
DROP TABLE mail_api_keys;
DROP TABLE accounts;
