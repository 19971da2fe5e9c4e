export { meteredProvider } from './metered-provider.ts';
export { metricsRoute, recordRequests } from './metrics-routes.ts';
export { type IpnOutcome, type ProviderOutcome, type ServiceMetrics, serviceMetrics } from './service-metrics.ts';
