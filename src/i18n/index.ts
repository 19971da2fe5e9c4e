export { formatInstant, formatInstantWithZone, formatIsoDate, isIsoDate } from './format-dates.ts';
export { PAYMENT_WORDING, type PaymentWording } from './payment-wording.ts';
export { type PluralForms, plural } from './plural.ts';
export { colon, labelled } from './punctuation.ts';
