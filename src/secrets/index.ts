export {
  checkKeyId,
  KeyRingError,
  keyRing,
  LEGACY_KEY_ID,
  type NamedKey,
  parseOldKeys,
  type SecretKeyRing,
  singleKey,
} from './key-ring.js';
export { type ResealFailure, type ResealResult, resealAll } from './reseal.js';
export { deriveKey, SealedValueError, type SecretBox, sealedKeyId, secretBox } from './secret-box.js';
export { providerSecrets, resolveSecretKey, resolveSecretKeys } from './service-keys.js';
