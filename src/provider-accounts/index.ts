// A tenant's payment provider account (each hotel its own Lyra shop, or the sandbox): checked,
// sealed and stored in one place, for the command line and the back office alike.

export { describeProviderAccount, presentProviderAccount } from './present-provider-account.ts';
export {
  LYRA_MODES,
  type LyraAccountInput,
  type LyraField,
  type LyraMode,
  ProviderAccountInputError,
  ProviderCredentialsError,
  setLyraAccount,
  setSandboxAccount,
} from './provider-account-setup.ts';
