-- A bulk capture or refund takes a reason and a note, as a single one does: kept with each job
-- of the batch and given to its move, so the request's history, detail, events and e-mails say
-- why, whether the move was made one by one or in bulk.
ALTER TABLE bulk_jobs ADD COLUMN IF NOT EXISTS move_reason text, ADD COLUMN IF NOT EXISTS move_note text;
