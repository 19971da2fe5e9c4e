import type { Tenant } from '../../db/index.ts';
import type { TenantContext } from '../../payment-requests/index.ts';

/** What the command facade needs of a tenant, the same as the API builds from a key. */
export function tenantContextOf(t: Tenant): TenantContext {
  return {
    tenantId: t.id,
    timezone: t.timezone,
    linkLifetimeDays: t.link_lifetime_days,
    confirmationEmail: t.confirmation_email,
  };
}
