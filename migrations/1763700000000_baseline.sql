-- Up Migration
-- The first migration: it marks the database as managed by domainkit. Each service's tables arrive in the
-- migrations of the issue that introduces them. Primary keys are UUIDs made by the application (v7).
COMMENT ON SCHEMA public IS 'domainkit';

-- Down Migration
COMMENT ON SCHEMA public IS NULL;
