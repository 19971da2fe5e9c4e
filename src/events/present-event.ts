/**
 * An event as the feed and webhooks show it. `data` is the request's detail when the event was
 * written (built by the database trigger that writes the event, in the API's shape).
 */
export function presentEvent(e: { id: number; type: string; created_at: Date; data: Record<string, unknown> }) {
  return {
    id: e.id,
    type: e.type,
    created_at: new Date(e.created_at).toISOString(),
    data: e.data,
  };
}
