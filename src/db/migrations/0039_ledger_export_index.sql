-- Exports of a hotel's ledger movements over a period read them oldest first, a page at a
-- time: one index range per page instead of a sort of every movement the hotel ever had.
-- Cost: one more index entry per ledger row written (a hold, a capture, a refund).
CREATE INDEX money_ledger_tenant_created ON money_ledger (tenant_id, created_at, id);
