export { isRefusalCode, type LyraClient, type LyraEndpoint, LyraServiceError, lyraClient } from './client.js';
export { checkLyraCredentials, clientUrls, type LyraAccount, lyraProvider } from './lyra-provider.js';
export { readTransaction } from './lyra-transaction.js';
export { DETAILED_STATUSES, fromLyraAmount, toLyraAmount } from './mapping.js';
export { claimedOrderId, parseLyraNotification, signAnswer, verifyBrowserReturn } from './notification.js';
