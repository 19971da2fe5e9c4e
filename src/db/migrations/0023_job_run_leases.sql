-- A run is leased: the instance running it renews lease_until while the job goes on, so a
-- `running` row whose lease has passed belongs to a process that died (kill -9, out of memory,
-- a host lost). The scheduler then runs that slot again on the same row, counting the attempt,
-- instead of leaving it `running` forever with its work undone.
--
-- Usable by the previous release during a rolling upgrade: the columns have defaults and the
-- unique (job, slot) claim is unchanged. A run inserted by that code gets a lease of an hour,
-- long enough for any of its jobs, since it never renews it.
ALTER TABLE job_runs ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt >= 1);
ALTER TABLE job_runs ADD COLUMN lease_until timestamptz DEFAULT now() + interval '1 hour';
-- Runs already `running`: a live one (another instance of the previous release) keeps an hour
-- from its start; one whose process died long ago is run again by the first pass.
UPDATE job_runs SET lease_until = started_at + interval '1 hour' WHERE outcome = 'running';
UPDATE job_runs SET lease_until = NULL WHERE outcome <> 'running';
ALTER TABLE job_runs ADD CONSTRAINT job_runs_running_leased CHECK (outcome <> 'running' OR lease_until IS NOT NULL);
-- Every scheduler pass asks for runs whose lease has passed: only `running` rows, a handful.
CREATE INDEX job_runs_lease ON job_runs (lease_until) WHERE outcome = 'running';
