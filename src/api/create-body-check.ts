import { type CreatePaymentRequestInput, createFieldIssues, errors } from '../domain/index.ts';
import { validationWith } from './error-handler.ts';
import { CreateBody } from './schemas.ts';
import { makeAjv } from './validator.ts';

const validate = makeAjv(false).compile(CreateBody);
const validateGuestEmail = makeAjv(false).compile(CreateBody.properties.guest_email);

/**
 * The create body checked exactly as POST /api/payment-requests/ checks it (its schema, then
 * the field rules), for callers that build the body themselves: the back office's New request
 * form. Returns the body with the schema's defaults applied, or throws the API's 422.
 */
export function checkCreateBody(body: Record<string, unknown>): CreatePaymentRequestInput {
  const copy: { amount?: unknown; reservation_data?: unknown } = structuredClone(body);
  if (!validate(copy)) throw validationWith({ validation: validate.errors }, createFieldIssues(copy));
  const issues = createFieldIssues(copy);
  if (issues.length > 0) throw errors.validation(issues);
  return copy as unknown as CreatePaymentRequestInput;
}

/**
 * A guest's e-mail address as the create body checks it (its schema's `email` format and length),
 * for the back office's correction of one: the address a request may hold is the API's.
 */
export function isGuestEmail(value: string): boolean {
  return validateGuestEmail(value) === true;
}
