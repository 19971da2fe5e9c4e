import {
  type AppError,
  type CreatePaymentRequestInput,
  createFieldIssues,
  errors,
  validateCreate,
} from '../domain/index.ts';
import { validationWith } from './error-handler.ts';
import { CreateBody } from './schemas.ts';
import { makeAjv } from './validator.ts';

const validate = makeAjv(false).compile(CreateBody);
const validateGuestEmail = makeAjv(false).compile(CreateBody.properties.guest_email);

export interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  schemaPath?: string;
}

const STAY_DATES = new Set(['/reservation_data/checkin', '/reservation_data/checkout']);

/**
 * Whether the create command's own rules (validateCreate: the DEPOSIT's 400 first, then the
 * field rules' 422) refuse this issue of the schema as well: the DEPOSIT's if/then, the
 * amount's range and decimals, a stay's date. A body refused for those only is left to the
 * command, so its answer is what it always was, and is stored with its Idempotency-Key and
 * replayed like any refusal the command makes.
 */
export function statedByCreateRules(v: SchemaIssue): boolean {
  if (v.keyword === 'if' || (v.schemaPath ?? '').startsWith('#/then/')) return true;
  if (v.instancePath === '/amount') return ['minimum', 'maximum', 'multipleOf'].includes(v.keyword ?? '');
  return STAY_DATES.has(v.instancePath ?? '');
}

/**
 * What a create body the schema refused is answered. The schema states the DEPOSIT's rule (an
 * amount above 0, in its if/then), which the service has always answered with its own 400
 * deposit_amount_required: when that rule is all that is wrong, that 400; otherwise one 422 with
 * every other field to fix, the field rules' issues beside the schema's.
 */
export function createRefusal(validation: readonly SchemaIssue[], body: unknown): AppError {
  const b = (body ?? {}) as { request_type?: unknown; amount?: unknown };
  const depositWithout = b.request_type === 'DEPOSIT' && !(typeof b.amount === 'number' && b.amount > 0);
  const depositRule = (v: SchemaIssue) =>
    v.keyword === 'if' ||
    (v.schemaPath ?? '').startsWith('#/then/') ||
    (depositWithout && v.instancePath === '/amount' && v.keyword === 'minimum');
  const rest = validation.filter((v) => !depositRule(v));
  if (rest.length === 0 && depositWithout) return errors.depositAmountRequired();
  return validationWith({ validation: rest }, createFieldIssues(b));
}

/**
 * The create body checked exactly as POST /api/payment-requests/ checks it (its schema, then
 * the field rules), for callers that build the body themselves: the back office's New request
 * form. Returns the body with the schema's defaults applied, or throws the API's 422 (or its
 * 400 deposit_amount_required).
 */
export function checkCreateBody(body: Record<string, unknown>): CreatePaymentRequestInput {
  const copy: { amount?: unknown; reservation_data?: unknown } = structuredClone(body);
  if (!validate(copy)) throw createRefusal(validate.errors ?? [], copy);
  const input = copy as unknown as CreatePaymentRequestInput;
  validateCreate(input);
  return input;
}

/**
 * A guest's e-mail address as the create body checks it (its schema's `email` format and length),
 * for the back office's correction of one: the address a request may hold is the API's.
 */
export function isGuestEmail(value: string): boolean {
  return validateGuestEmail(value) === true;
}
