export { meteredProvider } from './metered-provider.js';
export { metricsRoute, recordRequests } from './metrics-routes.js';
export { type IpnOutcome, type ProviderOutcome, type ServiceMetrics, serviceMetrics } from './service-metrics.js';
