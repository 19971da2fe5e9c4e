-- events_created, a btree on events.created_at, served one query: the daily retention purge.
-- Every status change writes an event, so every create, notification, hold, capture and refund
-- wrote an entry in it, at its right edge, where concurrent writers meet. The purge now walks
-- the primary key instead: an event is written with its change, so ids follow time, and the
-- walk stops at the first event still kept.
DROP INDEX events_created;
