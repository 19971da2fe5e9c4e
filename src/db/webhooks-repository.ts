import type { Database } from './database.ts';
import { webhookDeliveryLogRepository } from './webhook-delivery-log-repository.ts';
import { webhookEndpointsRepository } from './webhook-endpoints-repository.ts';
import { webhookSendingRepository } from './webhook-sending-repository.ts';

export type {
  AttemptRow,
  AttemptTiming,
  ClaimedDelivery,
  ClaimLimits,
  DeliveryLogRow,
  DeliveryRow,
  EndpointSummaryRow,
  WebhookEndpointRow,
} from './webhook-rows.ts';

/**
 * Webhook endpoints and their delivery outbox (rows written by the status_history trigger), one
 * repository made of three parts: the endpoints, the sender's statements, the delivery log.
 */
export function webhooksRepository(db: Database) {
  return {
    ...webhookEndpointsRepository(db),
    ...webhookSendingRepository(db),
    ...webhookDeliveryLogRepository(db),
  };
}
export type WebhooksRepository = ReturnType<typeof webhooksRepository>;
