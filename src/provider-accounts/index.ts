// A tenant's payment provider account (each hotel its own Lyra shop or Stripe account, or the sandbox): checked,
// sealed and stored in one place, for the command line and the back office alike.

export { describeProviderAccount, type PresentOptions, presentProviderAccount } from './present-provider-account.ts';
export {
  LYRA_MODES,
  type LyraAccountInput,
  type LyraField,
  type LyraMode,
  ProviderAccountInputError,
  ProviderCredentialsError,
  type StripeAccountInput,
  setLyraAccount,
  setSandboxAccount,
  setStripeAccount,
  stripeWebhookUrl,
} from './provider-account-setup.ts';
