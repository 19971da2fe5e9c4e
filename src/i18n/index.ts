export { formatInstant, formatIsoDate, isIsoDate } from './format-dates.js';
export { PAYMENT_WORDING, type PaymentWording } from './payment-wording.js';
