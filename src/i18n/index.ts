export { PAYMENT_WORDING, type PaymentWording } from './payment-wording.js';
