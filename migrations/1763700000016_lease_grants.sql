-- Up Migration
-- Takes of one (kind, client) that arrive while one is being asked are asked for together (platform/leases): the
-- statement grants as many as there is room for and says how many in `granted`, which it writes under the
-- row's lock, so RETURNING reads its own grant.
ALTER TABLE client_leases ADD COLUMN granted integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE client_leases DROP COLUMN granted;
