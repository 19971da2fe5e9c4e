import type { Repositories, Tenant } from '../db/index.ts';
import { AppError, errors } from '../domain/index.ts';
import { parseSettings } from './settings-fields.ts';

/**
 * A tenant as the CLI (`tenant show --json`) and the back office present it. Settings only:
 * no secret (provider credentials, key hashes) is ever part of it.
 */
export function presentTenant(t: Tenant): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    sender_email: t.sender_email,
    confirmation_email: t.confirmation_email,
    timezone: t.timezone,
    create_rate_limit: t.create_rate_limit,
    hold_days: t.hold_days,
    link_lifetime_days: t.link_lifetime_days,
    guarantee_ask_guest: t.guarantee_ask_guest,
    guarantee_max_asks: t.guarantee_max_asks,
    address: t.address,
    phone: t.phone,
    contact_email: t.contact_email,
    terms_url: t.terms_url,
    accent_color: t.accent_color,
    require_2fa: t.require_2fa,
    reminders: t.reminders,
    reminder_after_hours: t.reminder_after_hours,
    reminder_before_expiry_hours: t.reminder_before_expiry_hours,
    reminder_max: t.reminder_max,
    digest_email: t.digest_email,
    digest_hour: t.digest_hour,
    digest_language: t.digest_language,
    // The path payreq serves it at (on PUBLIC_BASE_URL); null: no logo.
    logo:
      t.logo_hash && t.logo_type ? { type: t.logo_type, sha256: t.logo_hash, path: logoPath(t.id, t.logo_hash) } : null,
    created_at: new Date(t.created_at).toISOString(),
  };
}

/** Where payreq serves a tenant's logo: the hash in the path, so a URL always means the same bytes. */
export function logoPath(tenantId: string, hash: string): string {
  return `/logo/${tenantId}/${hash}`;
}

export const tenantNotFound = (id: string) => new AppError('tenant_not_found', 404, `No tenant with id ${id}`);

export async function findTenant(repos: Repositories, id: string): Promise<Tenant> {
  const tenant = await repos.tenants.find(id);
  if (!tenant) throw tenantNotFound(id);
  return tenant;
}

export interface SettingsChange {
  before: Tenant;
  after: Tenant;
  /** Names of the settings whose value changed, for the audit trail. */
  changed: string[];
}

/**
 * Validates raw values (absent: unchanged) and stores them in one statement. Every problem is
 * reported at once (422 `validation_failed` with details); nothing is written unless all pass.
 */
export async function updateTenantSettings(
  repos: Repositories,
  id: string,
  raw: Readonly<Record<string, string | boolean | undefined>>,
): Promise<SettingsChange> {
  const { patch, issues } = parseSettings(raw);
  if (issues.length > 0) throw errors.validation(issues);
  const before = await findTenant(repos, id);
  const after = await repos.tenants.update(id, patch);
  if (!after) throw tenantNotFound(id);
  const changed = Object.keys(patch).filter(
    (k) => (before as unknown as Record<string, unknown>)[k] !== (after as unknown as Record<string, unknown>)[k],
  );
  return { before, after, changed };
}
