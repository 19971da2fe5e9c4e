// Tenants (one hotel each) and their settings: one implementation for the CLI and the back office.
export {
  parseSetting,
  parseSettings,
  SETTING_FIELDS,
  type SettingField,
  type SettingKind,
  type SettingsPatch,
  type SettingValue,
} from './settings-fields.js';
export {
  findTenant,
  presentTenant,
  type SettingsChange,
  tenantNotFound,
  updateTenantSettings,
} from './tenant-settings.js';
