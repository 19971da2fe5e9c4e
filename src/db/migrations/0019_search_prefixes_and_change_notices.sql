-- The back office's search, for text that names one request (a reference, a reservation
-- number, an e-mail address): matched from its start, so the btree ranges over the prefix.
-- The trigram index (0012) still answers words, but a needle made of trigrams every row holds
-- ("imp", "202", "gue", "@ex") reads each of their posting lists: 100 ms and more at a million
-- rows, where a range in one of these takes well under a millisecond. text_pattern_ops: the
-- range works whatever the database's collation.
CREATE INDEX payment_requests_reference_prefix ON payment_requests (lower(reference) text_pattern_ops);
CREATE INDEX payment_requests_reservation_prefix ON payment_requests (lower(reservation_ref) text_pattern_ops);
CREATE INDEX payment_requests_email_prefix ON payment_requests (lower(guest_email) text_pattern_ops);

-- A change to what the API's key cache holds (a tenant's settings, a key's status or expiry,
-- the tenant's provider account) is announced on payreq_auth_changes with the tenant's id.
-- Every running instance listens and drops that tenant's cached keys: the change applies to
-- the next call, whoever made it (the back office, `payreq tenant update` from another
-- process, another instance, plain SQL). NOTIFY is sent at commit, never for a rollback.
CREATE FUNCTION payreq_notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'tenants' THEN
    PERFORM pg_notify('payreq_auth_changes', NEW.id::text);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('payreq_auth_changes', OLD.tenant_id::text);
  ELSE
    PERFORM pg_notify('payreq_auth_changes', NEW.tenant_id::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER tenants_auth_change AFTER UPDATE ON tenants
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION payreq_notify_auth_change();
-- Not on last_used_at: a key in use writes it once a minute, and nothing cached depends on it.
CREATE TRIGGER api_keys_auth_change AFTER UPDATE ON api_keys
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
  EXECUTE FUNCTION payreq_notify_auth_change();
CREATE TRIGGER api_keys_auth_delete AFTER DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION payreq_notify_auth_change();
CREATE TRIGGER provider_accounts_auth_change AFTER INSERT OR UPDATE OR DELETE ON provider_accounts
  FOR EACH ROW EXECUTE FUNCTION payreq_notify_auth_change();
