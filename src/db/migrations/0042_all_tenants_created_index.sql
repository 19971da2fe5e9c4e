-- The index of every tenant's requests by date (0012) answers the back office's list, exports
-- and totals across tenants. It also tempted the planner for one tenant's list
-- (`tenant_id = $1 ORDER BY created_at DESC, id DESC`, the API's and the back office's): for a
-- tenant holding a large share of the table it priced that index below the tenant's own
-- (tenant_id, created_at, id), since by the columns' statistics the dates follow the table's
-- order and the tenants do not, then walked it throwing away every other tenant's rows. On a
-- 100-row page of a tenant holding a tenth of a million rows: 1,010 entries read and 909
-- thrown away, 42 buffers; through the tenant's index, 101 entries and 39 buffers.
--
-- Made partial on a condition every row meets (the table's check on the amount) and that only
-- the queries across tenants write (requestConditions in control-requests-repository.ts): a
-- query names the condition to use the index, and a one-tenant query, which never does, reads
-- the tenant's own index at every size. Not `id IS NOT NULL`: PostgreSQL 17 and later drop
-- that test on a NOT NULL column from a query, which could then never use the index.
DROP INDEX payment_requests_created;
CREATE INDEX payment_requests_created ON payment_requests (created_at DESC, id DESC) WHERE amount >= 0;
