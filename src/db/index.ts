import { adminSessionsRepository } from './admin-sessions-repository.js';
import { adminUsersRepository } from './admin-users-repository.js';
import { apiKeysRepository } from './api-keys-repository.js';
import { auditRepository } from './audit-repository.js';
import { booksRepository } from './books-repository.js';
import { bulkJobsRepository } from './bulk-jobs-repository.js';
import { controlRequestsRepository } from './control-requests-repository.js';
import type { Database } from './database.js';
import { dayPlanRepository } from './day-plan-repository.js';
import { deferredHoldsRepository } from './deferred-holds-repository.js';
import { eventsRepository } from './events-repository.js';
import { expiryRepository } from './expiry-repository.js';
import { exportsRepository } from './exports-repository.js';
import { guaranteesRepository } from './guarantees-repository.js';
import { idempotencyRepository } from './idempotency-repository.js';
import { moneyLedgerRepository } from './money-ledger-repository.js';
import { paymentRequestsRepository } from './payment-requests-repository.js';
import { providerAccountsRepository } from './provider-accounts-repository.js';
import { reconcileCheckRepository } from './reconcile-check-repository.js';
import { schedulesRepository } from './schedules-repository.js';
import { sealedValuesRepository } from './sealed-values-repository.js';
import { settingsRepository } from './settings-repository.js';
import { signInThrottleRepository } from './sign-in-throttle-repository.js';
import { statisticsRepository } from './statistics-repository.js';
import { teamInvitationsRepository } from './team-invitations-repository.js';
import { tenantsRepository } from './tenants-repository.js';
import { twoFactorRepository } from './two-factor-repository.js';
import { webhooksRepository } from './webhooks-repository.js';

export {
  type AdminSessionsRepository,
  sessionIdHash,
  type UserSessionRow,
} from './admin-sessions-repository.js';
export {
  type AdminUserRow,
  type AdminUsersRepository,
  type RoleGrant,
  type RoleRow,
  type SessionUserRow,
  TENANT_ROLES,
  type TenantRole,
} from './admin-users-repository.js';
export type { ApiKeyAuthRow, ApiKeyStatus, ApiKeySummary } from './api-keys-repository.js';
export type {
  AuditEntry,
  AuditFilter,
  AuditOutcome,
  AuditRepository,
  AuditRow,
} from './audit-repository.js';
export { auditRepository } from './audit-repository.js';
export {
  type BooksCheckDetail,
  type BooksIncidentRow,
  type BooksRepository,
  type BooksRunSummary,
  countOpenBooksIncidents,
  type HeldBooksRun,
  type InDoubtOperationRow,
  type MisplacedMoneyRow,
  type OrderFacts,
} from './books-repository.js';
export {
  type BulkAction,
  type BulkJobRow,
  type BulkJobsRepository,
  type BulkState,
  bulkJobsRepository,
} from './bulk-jobs-repository.js';
export type {
  ControlDetailRow,
  ControlListFilter,
  ControlListPage,
  ControlListRow,
  ControlRequestsRepository,
  HistoryRow,
  LedgerRow,
  SearchMatch,
} from './control-requests-repository.js';
export type { Database, Queryable, QueryOptions, QueryResult } from './database.js';
export { PG, pgCode } from './database.js';
export {
  type DayPlanRepository,
  type DayPlanRow,
  type DayTotals,
  type DigestTenantRow,
  type ReminderHistoryRow,
  UNPAID_STATUSES,
} from './day-plan-repository.js';
export type { DeferredHoldsRepository, DueImprint } from './deferred-holds-repository.js';
export {
  type EmailSubjectRow,
  emailOutboxRepository,
  type OutboxEmail,
  type OutboxKind,
  type TenantMailRow,
} from './email-outbox-repository.js';
export type { ChangedFilter, EventRow, EventsRepository } from './events-repository.js';
export type { Deadline, ExpiryBatch, ExpiryRepository } from './expiry-repository.js';
export type {
  CurrencyTotals,
  ExportCursor,
  ExportsRepository,
  LedgerExportRow,
  RequestExportRow,
} from './exports-repository.js';
export { expandGenerated, generatedHash, namedGenerators } from './generated-sql.js';
export {
  type FailedGuaranteeRow,
  failedGuarantees,
  type GuaranteesRepository,
  guaranteesRepository,
  queueGuaranteeMails,
  type RefusedHold,
} from './guarantees-repository.js';
export { type GuestRequestRow, guestRequestsRepository } from './guest-requests-repository.js';
export { migrate, pendingMigrations } from './migrate.js';
export type {
  LedgerEntry,
  LedgerKind,
  LedgerOutcome,
  LedgerState,
  MoneyLedgerRepository,
  NewLedgerEntry,
  RequestedRow,
} from './money-ledger-repository.js';
export { type DatabaseLocation, openDatabase, parseDatabaseUrl } from './open-database.js';
export {
  type ClaimedRow,
  CREATE_SQL,
  type Created,
  type CreateKey,
  type CreateOptions,
  createParams,
  type ListFilter,
  type PaymentRequestRow,
  type PaymentRequestsRepository,
  type RequestSummaryFields,
  type StatusRow,
} from './payment-requests-repository.js';
export { pgliteDatabase, startPglite } from './pglite-database.js';
export type {
  ProviderAccountInput,
  ProviderAccountRow,
  ProviderAccountsRepository,
} from './provider-accounts-repository.js';
export {
  lockNotifiedRequest,
  markProviderEventApplied,
  type NotifiedRequestRow,
  type ProviderEventOutcome,
  recordProviderEvent,
  tenantOfDeletedRequest,
} from './provider-events-repository.js';
export type { CheckWindow, HeldWindow, ReconcileCheckRepository } from './reconcile-check-repository.js';
export type { ClaimedRun, JobRunRow, ScheduleRow, SchedulesRepository } from './schedules-repository.js';
export {
  SEALED_COLUMNS,
  type SealedKind,
  type SealedValue,
  type SealedValuesRepository,
} from './sealed-values-repository.js';
export { readServiceBacklogs, type ServiceBacklogs } from './service-backlogs-repository.js';
export type { SignInThrottleRepository, ThrottleRow } from './sign-in-throttle-repository.js';
export {
  type AppliedChange,
  applyStatusChanges,
  currentStatus,
  deleteRequest,
  lockAmounts,
  recordIncident,
  releaseClaims,
  type StatusChange,
} from './status-changes.js';
export type { Tenant, TenantLogo } from './tenants-repository.js';
export type { TwoFactorRepository, TwoFactorRow } from './two-factor-repository.js';
export type {
  AttemptRow,
  AttemptTiming,
  ClaimedDelivery,
  DeliveryLogRow,
  DeliveryRow,
  EndpointSummaryRow,
  WebhookEndpointRow,
  WebhooksRepository,
} from './webhooks-repository.js';
export { webhooksRepository } from './webhooks-repository.js';
export function repositories(db: Database) {
  return {
    tenants: tenantsRepository(db),
    apiKeys: apiKeysRepository(db),
    paymentRequests: paymentRequestsRepository(db),
    idempotency: idempotencyRepository(db),
    ledger: moneyLedgerRepository(db),
    reconcileCheck: reconcileCheckRepository(db),
    books: booksRepository(db),
    settings: settingsRepository(db),
    deferredHolds: deferredHoldsRepository(db),
    expiry: expiryRepository(db),
    schedules: schedulesRepository(db),
    events: eventsRepository(db),
    webhooks: webhooksRepository(db),
    adminUsers: adminUsersRepository(db),
    adminSessions: adminSessionsRepository(db),
    signInThrottle: signInThrottleRepository(db),
    twoFactor: twoFactorRepository(db),
    audit: auditRepository(db),
    controlRequests: controlRequestsRepository(db),
    exports: exportsRepository(db),
    bulkJobs: bulkJobsRepository(db),
    providerAccounts: providerAccountsRepository(db),
    sealedValues: sealedValuesRepository(db),
    guarantees: guaranteesRepository(db),
    dayPlan: dayPlanRepository(db),
    statistics: statisticsRepository(db),
    teamInvitations: teamInvitationsRepository(db),
  };
}
export type Repositories = ReturnType<typeof repositories>;
export type { InvitationRow, TeamInvitationsRepository } from './team-invitations-repository.js';
