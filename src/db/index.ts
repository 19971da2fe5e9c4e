import { adminSessionsRepository } from './admin-sessions-repository.ts';
import { adminUsersRepository } from './admin-users-repository.ts';
import { apiKeysRepository } from './api-keys-repository.ts';
import { auditRepository } from './audit-repository.ts';
import { booksRepository } from './books-repository.ts';
import { bulkJobsRepository } from './bulk-jobs-repository.ts';
import { controlRequestsRepository } from './control-requests-repository.ts';
import type { Database } from './database.ts';
import { dayPlanRepository } from './day-plan-repository.ts';
import { eventsRepository } from './events-repository.ts';
import { exportsRepository } from './exports-repository.ts';
import { guaranteesRepository } from './guarantees-repository.ts';
import { idempotencyRepository } from './idempotency-repository.ts';
import { moneyLedgerRepository } from './money-ledger-repository.ts';
import { paymentRequestsRepository } from './payment-requests-repository.ts';
import { providerAccountsRepository } from './provider-accounts-repository.ts';
import { schedulesRepository } from './schedules-repository.ts';
import { sealedValuesRepository } from './sealed-values-repository.ts';
import { settingsRepository } from './settings-repository.ts';
import { signInThrottleRepository } from './sign-in-throttle-repository.ts';
import { statisticsRepository } from './statistics-repository.ts';
import { teamInvitationLinksRepository } from './team-invitation-links-repository.ts';
import { teamInvitationsRepository } from './team-invitations-repository.ts';
import { tenantsRepository } from './tenants-repository.ts';
import { twoFactorRepository } from './two-factor-repository.ts';
import { webhooksRepository } from './webhooks-repository.ts';

// Read from DATABASE_URL in a room of its own (the configuration must not load this door).
export { type DatabaseLocation, parseDatabaseUrl } from '../database-location/index.ts';
export {
  type AdminSessionsRepository,
  sessionIdHash,
  type UserSessionRow,
} from './admin-sessions-repository.ts';
export {
  type AdminUserRow,
  type AdminUsersRepository,
  type RoleGrant,
  type RoleRow,
  type SessionUserRow,
  TENANT_ROLES,
  type TenantRole,
} from './admin-users-repository.ts';
export type { ApiKeyAuthRow, ApiKeyStatus, ApiKeySummary } from './api-keys-repository.ts';
export type {
  AuditEntry,
  AuditFilter,
  AuditOutcome,
  AuditRepository,
  AuditRow,
} from './audit-repository.ts';
export { auditRepository } from './audit-repository.ts';
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
  openProviderIncident,
} from './books-repository.ts';
export {
  type BulkAction,
  type BulkJobRow,
  type BulkJobsRepository,
  type BulkState,
  bulkJobsRepository,
} from './bulk-jobs-repository.ts';
export type {
  ControlDetailRow,
  ControlListFilter,
  ControlListPage,
  ControlListRow,
  ControlRequestsRepository,
  HistoryRow,
  LedgerRow,
  SearchMatch,
} from './control-requests-repository.ts';
export type { Database, Queryable, QueryOptions, QueryResult, TransactionOptions } from './database.ts';
export { PG, pgCode } from './database.ts';
export type {
  DayPlanRepository,
  DayPlanRow,
  DayTotals,
  DigestTenantRow,
  ReminderHistoryRow,
} from './day-plan-repository.ts';
export {
  type DevMailRow,
  type DevMessage,
  type EmailSubjectRow,
  emailOutboxRepository,
  type OutboxEmail,
  type OutboxKind,
  type TenantMailRow,
} from './email-outbox-repository.ts';
export type { ChangedFilter, EventRow, EventsRepository } from './events-repository.ts';
export type {
  CurrencyTotals,
  ExportCursor,
  ExportsRepository,
  LedgerExportRow,
  RequestExportRow,
} from './exports-repository.ts';
export { expandGenerated, generatedHash, namedGenerators } from './generated-sql.ts';
export { GUARANTEE_FAILED } from './guarantee-failed.ts';
export {
  type FailedGuaranteeRow,
  failedGuarantees,
  type GuaranteesRepository,
  guaranteesRepository,
  queueDeclinedHoldMails,
  queueGuaranteeMails,
  type RefusedHold,
} from './guarantees-repository.ts';
export { migrate, pendingMigrations } from './migrate.ts';
export type {
  HoldTerms,
  LateContradiction,
  LedgerEntry,
  LedgerKind,
  LedgerOutcome,
  LedgerState,
  MoneyLedgerRepository,
  NewLedgerEntry,
  RequestedRow,
} from './money-ledger-repository.ts';
export { openDatabase } from './open-database.ts';
export {
  type ClaimedRow,
  CREATE_MANY_SQL,
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
} from './payment-requests-repository.ts';
export { pgliteDatabase, startPglite } from './pglite-database.ts';
export type {
  ProviderAccountInput,
  ProviderAccountRow,
  ProviderAccountsRepository,
} from './provider-accounts-repository.ts';
export {
  lockNotifiedRequest,
  markProviderEventApplied,
  type NotifiedRequestRow,
  type ProviderEventOutcome,
  recordProviderEvent,
  tenantOfDeletedRequest,
} from './provider-events-repository.ts';
export type { ClaimedSlot, JobRunRow, ScheduleRow, SchedulesRepository } from './schedules-repository.ts';
export {
  SEALED_COLUMNS,
  type SealedKind,
  type SealedValue,
  type SealedValuesRepository,
} from './sealed-values-repository.ts';
export { readServiceBacklogs, type ServiceBacklogs } from './service-backlogs-repository.ts';
export type { SignInThrottleRepository, ThrottleRow } from './sign-in-throttle-repository.ts';
export {
  type AppliedChange,
  applyStatusChanges,
  currentStatus,
  deleteRequest,
  lockAmounts,
  recordIncident,
  releaseClaims,
  type StatusChange,
} from './status-changes.ts';
export { statusLiterals } from './status-literals.ts';
export type { Tenant, TenantLogo } from './tenants-repository.ts';
export type { TwoFactorRepository, TwoFactorRow } from './two-factor-repository.ts';
export type {
  AttemptRow,
  AttemptTiming,
  ClaimedDelivery,
  DeliveryLogRow,
  DeliveryRow,
  EndpointSummaryRow,
  WebhookEndpointRow,
  WebhooksRepository,
} from './webhooks-repository.ts';
export { webhooksRepository } from './webhooks-repository.ts';
export function repositories(db: Database) {
  return {
    tenants: tenantsRepository(db),
    apiKeys: apiKeysRepository(db),
    paymentRequests: paymentRequestsRepository(db),
    idempotency: idempotencyRepository(db),
    ledger: moneyLedgerRepository(db),
    books: booksRepository(db),
    settings: settingsRepository(db),
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
    invitationLinks: teamInvitationLinksRepository(db),
  };
}
export type Repositories = ReturnType<typeof repositories>;
// Concurrent calls answered in groups by one statement (the creates; the sandbox's holds).
export { type BatchOptions, batchCalls } from './call-batcher.ts';
export {
  type InvitationLinkRow,
  type InvitationMailPayload,
  NAMES_REFUSED_PER_LINK,
  type TeamInvitationLinksRepository,
} from './team-invitation-links-repository.ts';
export type { InvitationRow, TeamInvitationsRepository } from './team-invitations-repository.ts';
