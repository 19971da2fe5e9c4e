export { isRefusalCode, type LyraClient, type LyraEndpoint, LyraServiceError, lyraClient } from './client.ts';
export { checkLyraCredentials, clientUrls, type LyraAccount, lyraProvider } from './lyra-provider.ts';
export { readTransaction } from './lyra-transaction.ts';
export { DETAILED_STATUSES, fromLyraAmount, toLyraAmount } from './mapping.ts';
export { claimedOrderId, parseLyraNotification, signAnswer, verifyBrowserReturn } from './notification.ts';
