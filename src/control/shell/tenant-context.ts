import type { Tenant } from '../../db/index.js';
import type { TenantContext } from '../../payment-requests/index.js';

/** What the command facade needs of a tenant, the same as the API builds from a key. */
export function tenantContextOf(t: Tenant): TenantContext {
  return {
    tenantId: t.id,
    timezone: t.timezone,
    linkLifetimeDays: t.link_lifetime_days,
    confirmationEmail: t.confirmation_email,
  };
}
