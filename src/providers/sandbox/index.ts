export { sandboxJobKind } from './ipn-delivery.ts';
export { SANDBOX_JRB_PATH, sandboxFee, sandboxReport } from './report-route.ts';
export { SANDBOX_PAY_PATH, type SandboxOptions, sandboxProvider } from './sandbox-provider.ts';
export { sandboxRoutes } from './sandbox-routes.ts';
export { TEST_CARDS } from './test-cards.ts';
