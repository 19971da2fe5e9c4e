export {
  checkKeyId,
  KeyRingError,
  keyRing,
  LEGACY_KEY_ID,
  type NamedKey,
  parseOldKeys,
  type SecretKeyRing,
  singleKey,
} from './key-ring.ts';
export { type ResealFailure, type ResealResult, resealAll } from './reseal.ts';
export { deriveKey, SealedValueError, type SecretBox, sealedKeyId, secretBox } from './secret-box.ts';
export { providerSecrets, resolveSecretKey, resolveSecretKeys } from './service-keys.ts';
