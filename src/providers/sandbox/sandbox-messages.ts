import type { Language } from '../../domain/index.ts';
import type { CardProblem } from './card-form-check.ts';

/**
 * Every string of the sandbox's own pages, in each language a request can have. One interface
 * for the three, so a string added in one language and forgotten in another does not compile.
 * The sandbox words its pages itself, as a provider does: it shares no text with the service.
 */
export interface SandboxMessages {
  /** The html lang attribute and the locale for amounts. */
  lang: Language;
  locale: string;
  testMode: string;
  cardTitle: string;
  /** Before the hotel's name, with the language's punctuation. */
  merchant: string;
  reference: string;
  imprintWhat: string;
  depositWhat: (amount: string) => string;
  cardNumber: string;
  expiryMonth: string;
  expiryYear: string;
  cvv: string;
  register: string;
  pay: string;
  problems: Record<CardProblem, string>;
  testCards: string;
  cardColumn: string;
  outcomeColumn: string;
  accepted: string;
  refused: string;
  technicalError: string;
  /** Registered, then blocked: every hold or charge refused. */
  blockedAfterRegistration: string;
  /** A Mastercard: accepted, its holds living 7 days. */
  mastercard: string;
  /** Registered, then every hold declined softly (insufficient funds). */
  softDecline: string;
  /** Registered, then every hold refused for good (stolen). */
  stolen: string;
  /** Registered and held once; every later hold (a renewal) refused. */
  renewalRefused: string;
  anyOther: string;
  testCardsHint: string;
  invalidTitle: string;
  invalidText: string;
  expiredTitle: string;
  expiredText: string;
  backTo: (merchant: string) => string;
}

const en: SandboxMessages = {
  lang: 'en',
  locale: 'en-GB',
  testMode: 'TEST MODE: sandbox payment provider. No real card is charged.',
  cardTitle: 'Card payment',
  merchant: 'Merchant:',
  reference: 'Order',
  imprintWhat: 'Your card will be registered. Nothing is charged now.',
  depositWhat: (amount) => `Amount to pay now: ${amount}.`,
  cardNumber: 'Card number',
  expiryMonth: 'Expiry month (MM)',
  expiryYear: 'Expiry year (YYYY)',
  cvv: 'Security code (CVV)',
  register: 'Register the card (test)',
  pay: 'Pay (test)',
  problems: {
    number: 'The card number is not valid.',
    month: 'The expiry month must be from 1 to 12.',
    year: 'The expiry year must be like 2030.',
    expired: 'This card has expired.',
    too_far_ahead: 'The expiry year is too far ahead.',
    cvv: 'The security code (CVV) must be 3 or 4 digits.',
  },
  testCards: 'Test cards',
  cardColumn: 'Card number',
  outcomeColumn: 'Outcome',
  accepted: 'accepted',
  refused: 'refused by the bank',
  technicalError: 'technical error',
  blockedAfterRegistration:
    'registered (IMPRINT), then every hold or charge refused: a card blocked after registration',
  mastercard: 'accepted, a Mastercard: its holds last 7 days (a Visa’s 4 days 18 hours)',
  softDecline:
    'registered (IMPRINT), then every hold declined softly, insufficient funds: tried again until the check-in day',
  stolen: 'registered (IMPRINT), then every hold refused for good: the card is reported stolen',
  renewalRefused:
    'registered (IMPRINT) and held once; every later hold (the renewal of a long stay’s hold) refused, do not honour',
  anyOther: 'any other valid card number',
  testCardsHint: 'Use any future expiry date and any 3-digit security code.',
  invalidTitle: 'Invalid payment form',
  invalidText:
    'This payment form is incomplete or was altered, so it cannot be processed. Nothing was charged. Please go back to the payment link you received and try again.',
  expiredTitle: 'This payment form has expired',
  expiredText:
    'A payment form can be used for 30 minutes after it is opened. Nothing was charged. Open your payment link again to pay.',
  backTo: (merchant) => `Back to ${merchant}`,
};

const fr: SandboxMessages = {
  lang: 'fr',
  locale: 'fr-FR',
  testMode: 'MODE TEST : prestataire de paiement de démonstration. Aucune carte réelle n’est débitée.',
  cardTitle: 'Paiement par carte',
  merchant: 'Commerçant :',
  reference: 'Commande',
  imprintWhat: 'Votre carte sera enregistrée. Rien n’est débité maintenant.',
  depositWhat: (amount) => `Montant à payer maintenant : ${amount}.`,
  cardNumber: 'Numéro de carte',
  expiryMonth: 'Mois d’expiration (MM)',
  expiryYear: 'Année d’expiration (AAAA)',
  cvv: 'Cryptogramme visuel (CVV)',
  register: 'Enregistrer la carte (test)',
  pay: 'Payer (test)',
  problems: {
    number: 'Le numéro de carte n’est pas valide.',
    month: 'Le mois d’expiration doit être compris entre 1 et 12.',
    year: 'L’année d’expiration doit s’écrire comme 2030.',
    expired: 'Cette carte est expirée.',
    too_far_ahead: 'L’année d’expiration est trop lointaine.',
    cvv: 'Le cryptogramme visuel (CVV) doit comporter 3 ou 4 chiffres.',
  },
  testCards: 'Cartes de test',
  cardColumn: 'Numéro de carte',
  outcomeColumn: 'Résultat',
  accepted: 'acceptée',
  refused: 'refusée par la banque',
  technicalError: 'erreur technique',
  blockedAfterRegistration:
    'enregistrée (IMPRINT), puis toute garantie ou tout débit refusé : une carte bloquée après l’enregistrement',
  mastercard: 'acceptée, une Mastercard : ses garanties durent 7 jours (celles d’une Visa 4 jours et 18 heures)',
  softDecline:
    'enregistrée (IMPRINT), puis toute garantie déclinée provisoirement, provision insuffisante : réessayée jusqu’au jour d’arrivée',
  stolen: 'enregistrée (IMPRINT), puis toute garantie refusée définitivement : la carte est déclarée volée',
  renewalRefused:
    'enregistrée (IMPRINT) et garantie une fois ; toute garantie suivante (le renouvellement pour un long séjour) refusée, ne pas honorer',
  anyOther: 'tout autre numéro de carte valide',
  testCardsHint: 'Utilisez une date d’expiration future et un cryptogramme quelconque de 3 chiffres.',
  invalidTitle: 'Formulaire de paiement invalide',
  invalidText:
    'Ce formulaire de paiement est incomplet ou a été modifié : il ne peut pas être traité. Rien n’a été débité. Revenez au lien de paiement que vous avez reçu et réessayez.',
  expiredTitle: 'Ce formulaire de paiement a expiré',
  expiredText:
    'Un formulaire de paiement est utilisable pendant 30 minutes après son ouverture. Rien n’a été débité. Ouvrez à nouveau votre lien de paiement pour payer.',
  backTo: (merchant) => `Retour à ${merchant}`,
};

const de: SandboxMessages = {
  lang: 'de',
  locale: 'de-DE',
  testMode: 'TESTMODUS: Sandbox-Zahlungsanbieter. Es wird keine echte Karte belastet.',
  cardTitle: 'Kartenzahlung',
  merchant: 'Händler:',
  reference: 'Bestellung',
  imprintWhat: 'Ihre Karte wird hinterlegt. Jetzt wird nichts belastet.',
  depositWhat: (amount) => `Jetzt zu zahlen: ${amount}.`,
  cardNumber: 'Kartennummer',
  expiryMonth: 'Ablaufmonat (MM)',
  expiryYear: 'Ablaufjahr (JJJJ)',
  cvv: 'Kartenprüfnummer (CVV)',
  register: 'Karte hinterlegen (Test)',
  pay: 'Bezahlen (Test)',
  problems: {
    number: 'Die Kartennummer ist ungültig.',
    month: 'Der Ablaufmonat muss zwischen 1 und 12 liegen.',
    year: 'Das Ablaufjahr muss wie 2030 geschrieben werden.',
    expired: 'Diese Karte ist abgelaufen.',
    too_far_ahead: 'Das Ablaufjahr liegt zu weit in der Zukunft.',
    cvv: 'Die Kartenprüfnummer (CVV) muss 3 oder 4 Ziffern haben.',
  },
  testCards: 'Testkarten',
  cardColumn: 'Kartennummer',
  outcomeColumn: 'Ergebnis',
  accepted: 'akzeptiert',
  refused: 'von der Bank abgelehnt',
  technicalError: 'technischer Fehler',
  blockedAfterRegistration:
    'hinterlegt (IMPRINT), danach wird jede Garantie und jede Belastung abgelehnt: eine nach der Hinterlegung gesperrte Karte',
  mastercard: 'akzeptiert, eine Mastercard: ihre Garantien gelten 7 Tage (die einer Visa 4 Tage und 18 Stunden)',
  softDecline:
    'hinterlegt (IMPRINT), danach wird jede Garantie vorläufig abgelehnt, Deckung unzureichend: bis zum Anreisetag erneut versucht',
  stolen: 'hinterlegt (IMPRINT), danach wird jede Garantie endgültig abgelehnt: die Karte ist als gestohlen gemeldet',
  renewalRefused:
    'hinterlegt (IMPRINT) und einmal garantiert; jede weitere Garantie (die Erneuerung bei einem langen Aufenthalt) abgelehnt, nicht ausführen',
  anyOther: 'jede andere gültige Kartennummer',
  testCardsHint: 'Verwenden Sie ein beliebiges künftiges Ablaufdatum und eine beliebige 3-stellige Prüfnummer.',
  invalidTitle: 'Ungültiges Zahlungsformular',
  invalidText:
    'Dieses Zahlungsformular ist unvollständig oder wurde verändert und kann nicht verarbeitet werden. Es wurde nichts belastet. Bitte öffnen Sie den erhaltenen Zahlungslink erneut.',
  expiredTitle: 'Dieses Zahlungsformular ist abgelaufen',
  expiredText:
    'Ein Zahlungsformular kann 30 Minuten nach dem Öffnen verwendet werden. Es wurde nichts belastet. Öffnen Sie Ihren Zahlungslink erneut, um zu bezahlen.',
  backTo: (merchant) => `Zurück zu ${merchant}`,
};

const BY_LANGUAGE: Record<Language, SandboxMessages> = { en, fr, de };

/** The request's language; English for a value the service never signs (an altered form). */
export function sandboxMessages(language: string | undefined): SandboxMessages {
  return Object.hasOwn(BY_LANGUAGE, language ?? '') ? BY_LANGUAGE[language as Language] : en;
}
