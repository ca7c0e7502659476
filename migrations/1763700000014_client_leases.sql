-- Up Migration
-- Per-client bounds shared by every process (docs/operations.md, "Bounds per client"). Each process is a holder
-- whose heartbeat moves `alive_until` on; what a client holds of a kind is the sum of the counts of the holders
-- still alive, so the streams and sessions of a process that died stop counting within one lease period.
-- Unlogged: a lease lives seconds to minutes and is worthless after a crash of the server, and an unlogged
-- write commits without waiting for a WAL flush, which keeps taking one off the cost of a durable commit.
CREATE UNLOGGED TABLE lease_holders (
  holder uuid PRIMARY KEY,
  alive_until timestamptz NOT NULL
);

-- One row per (kind, client): `held` maps each holder (its uuid as text) to how many it holds. One row, not one
-- per holder, so that taking is one INSERT … ON CONFLICT whose WHERE sees the latest counts of every process
-- under the row's lock: two processes can never both take the last place.
CREATE UNLOGGED TABLE client_leases (
  kind text NOT NULL,
  client text NOT NULL,
  held jsonb NOT NULL,
  PRIMARY KEY (kind, client)
);

-- Down Migration
DROP TABLE client_leases;
DROP TABLE lease_holders;
