-- One ledger row is paid out once: the matching rule already gives each movement to one
-- remittance line, and this makes the database say so too. A line that matched a row another
-- line already holds (none is expected; only a bug could have written one) keeps its place in
-- its remittance but matches nothing (already_paid_out, as the importer says it), before the
-- index is built.
UPDATE remittance_lines l
   SET ledger_id = NULL, matched_at = NULL,
       unmatched_reason = 'already_paid_out'
  FROM (SELECT DISTINCT ON (ledger_id) ledger_id, id FROM remittance_lines
         WHERE ledger_id IS NOT NULL ORDER BY ledger_id, id) first
 WHERE l.ledger_id = first.ledger_id AND l.id <> first.id;
DROP INDEX remittance_lines_ledger;
CREATE UNIQUE INDEX remittance_lines_ledger ON remittance_lines (ledger_id) WHERE ledger_id IS NOT NULL;
