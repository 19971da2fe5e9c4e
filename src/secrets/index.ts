export { deriveKey, type SecretBox, secretBox } from './secret-box.js';
