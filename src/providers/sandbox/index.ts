export { sandboxJobKind } from './ipn-delivery.js';
export { SANDBOX_PAY_PATH, type SandboxOptions, sandboxProvider } from './sandbox-provider.js';
export { sandboxRoutes } from './sandbox-routes.js';
export { TEST_CARDS } from './test-cards.js';
