/**
 * The introduction of the API reference (the OpenAPI document's `info.description`), in the
 * order an integrator needs it: what the API is for and the first calls, then errors and retries,
 * and last the encoding rules, which matter only to whoever writes a client or a validator.
 */
export const API_INTRODUCTION = [
  'Payment requests for hotels. Your PMS asks a guest for a **deposit** (paid at once) or an **imprint** (a card registered as the guarantee of the booking, held before arrival), sends the guest the payment link, and follows what happens.',
  '',
  '## First calls',
  '',
  '1. **Authenticate** every call with `X-API-Key: <prefix>.<secret>`: one key per hotel (`payreq key create`).',
  "2. **Create** a request: `POST /api/payment-requests/` with an `Idempotency-Key` header of your own (the booking and what you ask, e.g. `pms-BK-4711-deposit`). The answer (201) carries `payment_link`, a path to put after this server's address and send to the guest (or payreq e-mails it, when the hotel turned that on).",
  '3. **Follow** it: `GET /api/events/?after=<the last event id you handled>` gives every change in order (webhooks send the same events), and `GET /api/payment-requests/{uuid}/` reads one request.',
  '4. **Act** on it when the stay is settled: capture, release, refund, cancel or delete, each a `POST` with its own `Idempotency-Key`.',
  '',
  '## Errors and retries',
  '',
  'Every error is `{"error": "<message>", "code": "<stable code>", ...}`: match on `code` (each operation lists the codes it can answer; a 422 adds `details`, one entry per field to fix); authentication failures also carry `detail`. A network error, a timeout, a 429, 409 or 5xx is retried with the same `Idempotency-Key`, after `Retry-After` when the answer has one: the key makes the retry safe, a call is never done twice.',
  '',
  '## Text encoding rules',
  '',
  "Text fields refuse NUL (their `pattern`) and unpaired UTF-16 surrogates (a `\\uD800` to `\\uDFFF` escape not part of a pair), 422 `unstorable_text`: the second rule is the `x-well-formed-unicode: true` extension on those fields, not a pattern, because no pattern states it in every regex dialect (Rust's regex refuses surrogate escapes; its strings cannot hold one). Every `pattern` here compiles in ECMA-262 (with the `u` flag), Rust's regex, Python's re and PCRE: no lookaround, no backreference, no surrogate escape.",
].join('\n');
