// The rows of the webhook tables as the repositories read them, and the columns an endpoint is
// read with (one list, so every query answers the same WebhookEndpointRow).

export interface WebhookEndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  secret_sealed: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | null;
  /** When its current run of failed attempts began; null while it answers. */
  failing_since: Date | null;
  created_at: Date;
  /** Until when the secret replaced by the last rotation still signs; null: none does. */
  previous_secret_expires_at: Date | null;
}

/** An endpoint with what its list shows: its last attempt, and how many deliveries failed. */
export interface EndpointSummaryRow extends WebhookEndpointRow {
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  failed_deliveries: number;
  pending_deliveries: number;
}

/** One attempt of a delivery, as the log shows it. */
export interface AttemptRow {
  attempt: number;
  /** An ISO time: attempts come aggregated as JSON. */
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** One delivery of the log, with its event and every attempt, oldest first. */
export interface DeliveryLogRow {
  id: string;
  event_id: string;
  type: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  tries: AttemptRow[];
}

/** What an attempt took: recorded with its outcome, in the same statement. */
export interface AttemptTiming {
  attempt: number;
  startedAt: Date;
  durationMs: number;
}

/** What one claim may take; see claim(). */
export interface ClaimLimits {
  limit: number;
  leaseMs: number;
  perEndpoint: number;
  perTenant: number;
  /** The clock; the database's own when unset (tests drive it). */
  at?: Date;
}

/** A delivery this instance holds the lease on, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  first_attempt_due: Date;
  url: string;
  secret_sealed: string;
  /** The secret a rotation replaced, while it still signs. */
  previous_secret_sealed: string | null;
  tenant_id: string;
  type: string;
  data: Record<string, unknown>;
  event_created_at: Date;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  next_attempt_at: Date;
}

export const ENDPOINT_COLUMNS =
  'id, tenant_id, url, events, secret_sealed, status, disabled_reason, disabled_at, failing_since, created_at, previous_secret_expires_at';
