import {
  lowestAccentContrast,
  normaliseHexColour,
  type SettingField,
  type SettingProblemCode,
} from '../../tenants/index.ts';
import type { ControlLanguage } from '../shell/index.ts';

type Bounds = Pick<SettingField, 'min' | 'max'>;

/** The accent's lower contrast in the reader's decimals (only a hex colour reaches this). */
const ratio = (given: string, comma: boolean) => {
  const shown = lowestAccentContrast(normaliseHexColour(given) ?? '#ffffff').shown;
  return comma ? shown.replace('.', ',') : shown;
};

/** What is wrong with a setting, worded for staff: the CLI and the API keep the English text. */
export const SETTING_PROBLEMS: Record<
  ControlLanguage,
  Record<SettingProblemCode, (f: Bounds, given: string) => string>
> = {
  en: {
    true_or_false: () => 'Must be true or false',
    on_or_off: () => 'Must be on or off',
    needs_value: () => 'Needs a value',
    empty: () => 'Must not be empty',
    too_long: (f) => `At most ${f.max} characters`,
    control_characters: () => 'Must not contain invisible control characters',
    one_line: () => 'Must be one line of text',
    phone: () => 'Must be a phone number: digits, spaces, + ( ) - . /, 6 to 20 digits',
    https_url: (f) => `Must be an https:// address of at most ${f.max ?? 500} characters`,
    hex_colour: () => 'Must be a hex colour such as #1f4e79',
    low_contrast: (_, given) =>
      `A contrast of ${ratio(given, false)}:1 with white text or the page; at least 4.5:1 is needed (WCAG AA): choose a darker colour`,
    email: () => 'Must be an e-mail address',
    time_zone: () => 'Must be a time zone such as Europe/Paris',
    language: () => 'Must be English, French or German',
    whole_number: (f) => `Must be a whole number from ${f.min} to ${f.max}`,
  },
  fr: {
    true_or_false: () => 'Doit être true ou false',
    on_or_off: () => 'Doit être activé ou désactivé',
    needs_value: () => 'Une valeur est nécessaire',
    empty: () => 'Ne doit pas être vide',
    too_long: (f) => `${f.max} caractères au plus`,
    control_characters: () => 'Ne doit pas contenir de caractères de contrôle invisibles',
    one_line: () => 'Doit tenir sur une ligne',
    phone: () => 'Doit être un numéro de téléphone : chiffres, espaces, + ( ) - . /, de 6 à 20 chiffres',
    https_url: (f) => `Doit être une adresse https:// de ${f.max ?? 500} caractères au plus`,
    hex_colour: () => 'Doit être une couleur hexadécimale comme #1f4e79',
    low_contrast: (_, given) =>
      `Contraste de ${ratio(given, true)}:1 avec le texte blanc ou la page ; il faut au moins 4,5:1 (WCAG AA) : choisissez une couleur plus foncée`,
    email: () => 'Doit être une adresse e-mail',
    time_zone: () => 'Doit être un fuseau horaire comme Europe/Paris',
    language: () => 'Doit être l’anglais, le français ou l’allemand',
    whole_number: (f) => `Doit être un nombre entier de ${f.min} à ${f.max}`,
  },
  de: {
    true_or_false: () => 'Muss true oder false sein',
    on_or_off: () => 'Muss ein- oder ausgeschaltet sein',
    needs_value: () => 'Ein Wert ist nötig',
    empty: () => 'Darf nicht leer sein',
    too_long: (f) => `Höchstens ${f.max} Zeichen`,
    control_characters: () => 'Darf keine unsichtbaren Steuerzeichen enthalten',
    one_line: () => 'Muss eine einzige Zeile sein',
    phone: () => 'Muss eine Telefonnummer sein: Ziffern, Leerzeichen, + ( ) - . /, 6 bis 20 Ziffern',
    https_url: (f) => `Muss eine https://-Adresse mit höchstens ${f.max ?? 500} Zeichen sein`,
    hex_colour: () => 'Muss eine Hex-Farbe wie #1f4e79 sein',
    low_contrast: (_, given) =>
      `Ein Kontrast von ${ratio(given, true)}:1 zu weißem Text oder zur Seite; mindestens 4,5:1 ist nötig (WCAG AA): Wählen Sie eine dunklere Farbe`,
    email: () => 'Muss eine E-Mail-Adresse sein',
    time_zone: () => 'Muss eine Zeitzone wie Europe/Paris sein',
    language: () => 'Muss Englisch, Französisch oder Deutsch sein',
    whole_number: (f) => `Muss eine ganze Zahl von ${f.min} bis ${f.max} sein`,
  },
};
