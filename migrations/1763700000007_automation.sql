-- Up Migration
-- Mail for test automation: namespaces (addresses made on first mail), private inboxes, message tags, and the
-- version of the link extractor that read each message.

-- A namespace is claimed by one account on one domain: every address `<name>.<anything>@<domain>` is accepted, and
-- its inbox is made on first mail with the namespace's settings. The name is a DNS-label-like word, so the part
-- before the first dot of a local part names it without ambiguity.
CREATE TABLE mail_namespaces (
  id uuid PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  domain text NOT NULL REFERENCES mail_domains (name),
  name text NOT NULL CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$'),
  is_private boolean NOT NULL DEFAULT false,
  -- The life of each inbox made in it; null: persistent.
  inbox_ttl_seconds integer CHECK (inbox_ttl_seconds > 0),
  label text CHECK (length(label) <= 200),
  webhook_url text,
  webhook_secret text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (domain, name)
);
CREATE INDEX mail_namespaces_by_account ON mail_namespaces (account_id, created_at);

-- A private inbox is readable only with its owner's credentials; it always has an owner.
ALTER TABLE inboxes ADD COLUMN is_private boolean NOT NULL DEFAULT false;
ALTER TABLE inboxes ADD COLUMN namespace_id uuid REFERENCES mail_namespaces (id) ON DELETE CASCADE;
ALTER TABLE inboxes ADD CONSTRAINT inboxes_private_owned CHECK (NOT is_private OR account_id IS NOT NULL);
CREATE INDEX inboxes_by_account ON inboxes (account_id, created_at DESC, id DESC) WHERE account_id IS NOT NULL;
CREATE INDEX inboxes_by_namespace ON inboxes (namespace_id) WHERE namespace_id IS NOT NULL;

-- What followed `+` in the address the message was sent to (`name+tag@domain`), lower-cased; null: none.
ALTER TABLE messages ADD COLUMN tag text CHECK (length(tag) <= 64);

-- The transaction that stored the message: a wait without a cursor answers only with messages its first look at
-- the inbox could not see (realtime/waiter.ts), which the look's snapshot tells from this. Rows stored before have
-- none (they are older than any wait); added without a default first so that no existing row is rewritten.
ALTER TABLE messages ADD COLUMN stored_by xid8;
ALTER TABLE messages ALTER COLUMN stored_by SET DEFAULT pg_current_xact_id();

-- Which version of the link extractor read the message (0: one from before versions were kept). Reading a
-- message whose version is older extracts its links again.
ALTER TABLE messages ADD COLUMN links_version smallint NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE messages DROP COLUMN links_version;
ALTER TABLE messages DROP COLUMN stored_by;
ALTER TABLE messages DROP COLUMN tag;
DROP INDEX inboxes_by_namespace;
DROP INDEX inboxes_by_account;
ALTER TABLE inboxes DROP CONSTRAINT inboxes_private_owned;
ALTER TABLE inboxes DROP COLUMN namespace_id;
ALTER TABLE inboxes DROP COLUMN is_private;
DROP TABLE mail_namespaces;
