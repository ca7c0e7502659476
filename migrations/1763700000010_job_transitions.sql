-- Up Migration
-- Resume, retry and hard cancel (src/jobs/job-status.ts). A hard cancel ends a job `cancelled`. `run` counts
-- a job's runs: 0 for the first, one more for each resume and retry. Queue entries carry the run they were
-- made for, and an entry of an older run does no work, so the entries a resume or retry makes never fetch the
-- same rows as entries left from before it. Adding a column with a constant default changes the catalogue only.
ALTER TABLE jobs ADD COLUMN run integer NOT NULL DEFAULT 0;
ALTER TABLE jobs DROP CONSTRAINT jobs_status_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_status_check
  CHECK (status IN ('queued', 'running', 'paused', 'completed', 'failed', 'cancelled'));

-- Down Migration
-- A cancelled job becomes failed, the nearest status the older code knows (it ended without finishing).
UPDATE jobs SET status = 'failed' WHERE status = 'cancelled';
ALTER TABLE jobs DROP CONSTRAINT jobs_status_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_status_check CHECK (status IN ('queued', 'running', 'paused', 'completed', 'failed'));
ALTER TABLE jobs DROP COLUMN run;
