// API keys: creation (the secret shown once) and the status rules, for the CLI and the back office.
export { type ApiKeys, apiKeys, keyErrors } from './api-keys.js';
