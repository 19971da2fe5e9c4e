/**
 * The words of the sign-in page and of its code step's button, in English, French and German,
 * read as `SIGN_IN_MESSAGES[ctx.language]`. The username and password labels are the shell's
 * (the users page has them too), and so is the throttle's message (the error page says it).
 * A string missing in one language is a type error.
 */
import type { ControlLanguage } from '../shell/index.ts';

const en = {
  signIn: 'Sign in',
  signInFailed: 'Wrong username or password, or the account is disabled.',
  sessionExpired: 'Your session has ended. Please sign in again.',
};

export type SignInMessages = typeof en;

const fr: SignInMessages = {
  signIn: 'Se connecter',
  signInFailed: 'Nom d’utilisateur ou mot de passe incorrect, ou compte désactivé.',
  sessionExpired: 'Votre session a pris fin. Veuillez vous reconnecter.',
};

const de: SignInMessages = {
  signIn: 'Anmelden',
  signInFailed: 'Benutzername oder Passwort falsch, oder das Konto ist deaktiviert.',
  sessionExpired: 'Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an.',
};

export const SIGN_IN_MESSAGES: Record<ControlLanguage, SignInMessages> = { en, fr, de };
