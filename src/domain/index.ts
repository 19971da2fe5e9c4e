export * from './create-payment-request.js';
export * from './delete-rules.js';
export * from './errors.js';
export * from './money.js';
export * from './references.js';
export * from './refunds.js';
export * from './statuses.js';
export * from './transitions.js';
