// API keys: creation (the secret shown once) and the status rules, for the CLI and the back office.
export { generateApiKey, hashSecret, parseApiKey, secretMatches } from './api-key-format.ts';
export { type ApiKeys, apiKeys, keyErrors } from './api-keys.ts';
