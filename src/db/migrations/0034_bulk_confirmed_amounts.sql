-- A bulk action moves money only once the user has seen and confirmed each amount: the job
-- keeps the amount that was confirmed (minor units; NULL for a release, which moves nothing,
-- and for jobs queued before this), and the worker moves exactly that, or is refused.
ALTER TABLE bulk_jobs ADD COLUMN amount integer CHECK (amount > 0);
ALTER TABLE bulk_jobs ADD COLUMN currency text;
-- The address the user confirmed from: the audit row each job writes names it, like the
-- audit of an action taken on one request.
ALTER TABLE bulk_jobs ADD COLUMN ip text;
-- Why a job was refused, as a stable code beside the message: the progress page words it in
-- the user's language.
ALTER TABLE bulk_jobs ADD COLUMN reason_code text;
