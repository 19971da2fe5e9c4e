// Tenants (one hotel each) and their settings: one implementation for the CLI and the back office.

export {
  ACCENT_TEXT_COLOUR,
  accentContrastProblem,
  contrastRatio,
  GUEST_PAGE_BACKGROUND,
  lowestAccentContrast,
  normaliseHexColour,
} from './colour-contrast.ts';
export {
  parseSetting,
  parseSettings,
  SETTING_FIELDS,
  type SettingField,
  type SettingKind,
  type SettingProblemCode,
  type SettingsPatch,
  type SettingValue,
} from './settings-fields.ts';
export { checkLogo, MAX_LOGO_BYTES, setTenantLogo, sniffLogoType } from './tenant-logo.ts';
export {
  findTenant,
  logoPath,
  presentTenant,
  type SettingsChange,
  tenantNotFound,
  updateTenantSettings,
} from './tenant-settings.ts';
