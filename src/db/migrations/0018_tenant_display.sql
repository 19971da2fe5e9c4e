-- What the guest page shows of the hotel: its contact, terms, accent colour and logo. Every
-- column may be NULL ("not set": the page leaves that part out). Values are checked by the
-- tenant settings (src/tenants) before they get here; the CHECKs only keep a bad write by hand
-- from reaching a guest's page.
ALTER TABLE tenants ADD COLUMN address text CHECK (char_length(address) <= 300);
ALTER TABLE tenants ADD COLUMN phone text CHECK (char_length(phone) <= 30);
ALTER TABLE tenants ADD COLUMN contact_email text CHECK (char_length(contact_email) <= 254);
ALTER TABLE tenants ADD COLUMN terms_url text CHECK (terms_url ~ '^https://' AND char_length(terms_url) <= 500);
-- Lower-case #rrggbb, so the stylesheet URL made from it has one spelling per colour.
ALTER TABLE tenants ADD COLUMN accent_color text CHECK (accent_color ~ '^#[0-9a-f]{6}$');
-- The logo's bytes live here (a few hundred kB at most per hotel, backed up with the rest); its
-- hash names it in its URL, so a new logo is a new URL and the old one can be cached for good.
ALTER TABLE tenants ADD COLUMN logo bytea CHECK (octet_length(logo) <= 204800);
ALTER TABLE tenants ADD COLUMN logo_type text CHECK (logo_type IN ('image/png', 'image/jpeg', 'image/webp'));
ALTER TABLE tenants ADD COLUMN logo_hash text CHECK (logo_hash ~ '^[0-9a-f]{64}$');
ALTER TABLE tenants ADD CONSTRAINT tenants_logo_whole
  CHECK ((logo IS NULL) = (logo_type IS NULL) AND (logo IS NULL) = (logo_hash IS NULL));
