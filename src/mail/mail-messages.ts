import type { Language } from '../domain/index.js';

/**
 * Every string of the guest e-mails, per language. The IMPRINT and DEPOSIT explanations say the
 * same as the guest payment page (src/guest/messages.ts), so the e-mail and the page never
 * disagree about what happens to the guest's money.
 */
export interface MailMessages {
  /** BCP 47 locale for Intl, as on the guest page. */
  locale: string;
  greeting: (name: string) => string;
  linkSubject: (hotel: string) => string;
  linkIntro: (hotel: string) => string;
  imprintExplanation: (amount: string | null) => string;
  depositExplanation: (amount: string) => string;
  imprintAmountLabel: string;
  depositAmountLabel: string;
  linkAction: string;
  linkFallback: string;
  confirmationSubject: (hotel: string) => string;
  confirmationIntro: (amount: string, hotel: string) => string;
  capturedLabel: string;
  reference: string;
  checkin: string;
  checkout: string;
  roomType: string;
  signature: (hotel: string) => string;
}

const fr: MailMessages = {
  locale: 'fr-FR',
  greeting: (name) => `Bonjour ${name},`,
  linkSubject: (hotel) => `${hotel} : garantie de votre réservation`,
  linkIntro: (hotel) => `${hotel} vous invite à compléter votre réservation en ligne.`,
  imprintExplanation: (amount) =>
    amount
      ? `Aucun montant n’est débité maintenant. Votre carte est enregistrée en garantie : jusqu’à ${amount} pourront être bloqués sur votre carte avant votre arrivée, puis débités en cas de non-présentation.`
      : 'Aucun montant n’est débité maintenant. Votre carte est enregistrée en garantie de votre réservation.',
  depositExplanation: (amount) => `Le montant de ${amount} sera débité immédiatement sur votre carte.`,
  imprintAmountLabel: 'Montant maximal garanti',
  depositAmountLabel: 'Montant à payer',
  linkAction: 'Accéder au paiement sécurisé',
  linkFallback: 'Si le bouton ne fonctionne pas, copiez ce lien dans votre navigateur :',
  confirmationSubject: (hotel) => `${hotel} : confirmation de votre acompte`,
  confirmationIntro: (amount, hotel) => `Nous confirmons le paiement de votre acompte de ${amount} à ${hotel}.`,
  capturedLabel: 'Montant débité',
  reference: 'Référence',
  checkin: 'Arrivée',
  checkout: 'Départ',
  roomType: 'Type de chambre',
  signature: (hotel) => `À bientôt,\n${hotel}`,
};

const en: MailMessages = {
  locale: 'en-GB',
  greeting: (name) => `Hello ${name},`,
  linkSubject: (hotel) => `${hotel}: secure your booking`,
  linkIntro: (hotel) => `${hotel} invites you to complete your booking online.`,
  imprintExplanation: (amount) =>
    amount
      ? `No money is taken now. Your card is registered as a guarantee: up to ${amount} may be held on your card before your arrival, and charged if you do not arrive (no-show).`
      : 'No money is taken now. Your card is registered as a guarantee for your booking.',
  depositExplanation: (amount) => `${amount} will be charged to your card now.`,
  imprintAmountLabel: 'Maximum amount guaranteed',
  depositAmountLabel: 'Amount to pay',
  linkAction: 'Go to the secure payment page',
  linkFallback: 'If the button does not work, copy this link into your browser:',
  confirmationSubject: (hotel) => `${hotel}: your deposit is confirmed`,
  confirmationIntro: (amount, hotel) => `We confirm your deposit of ${amount} to ${hotel}.`,
  capturedLabel: 'Amount charged',
  reference: 'Reference',
  checkin: 'Check-in',
  checkout: 'Check-out',
  roomType: 'Room type',
  signature: (hotel) => `See you soon,\n${hotel}`,
};

const de: MailMessages = {
  locale: 'de-DE',
  greeting: (name) => `Guten Tag ${name},`,
  linkSubject: (hotel) => `${hotel}: Garantie Ihrer Reservierung`,
  linkIntro: (hotel) => `${hotel} bittet Sie, Ihre Reservierung online abzuschließen.`,
  imprintExplanation: (amount) =>
    amount
      ? `Es wird jetzt nichts abgebucht. Ihre Karte wird als Garantie hinterlegt: Bis zu ${amount} können vor Ihrer Anreise auf Ihrer Karte reserviert und bei Nichtanreise belastet werden.`
      : 'Es wird jetzt nichts abgebucht. Ihre Karte wird als Garantie für Ihre Reservierung hinterlegt.',
  depositExplanation: (amount) => `Der Betrag von ${amount} wird sofort von Ihrer Karte abgebucht.`,
  imprintAmountLabel: 'Garantierter Höchstbetrag',
  depositAmountLabel: 'Zu zahlender Betrag',
  linkAction: 'Zur sicheren Zahlung',
  linkFallback: 'Falls die Schaltfläche nicht funktioniert, kopieren Sie diesen Link in Ihren Browser:',
  confirmationSubject: (hotel) => `${hotel}: Bestätigung Ihrer Anzahlung`,
  confirmationIntro: (amount, hotel) => `Wir bestätigen Ihre Anzahlung von ${amount} an ${hotel}.`,
  capturedLabel: 'Abgebuchter Betrag',
  reference: 'Referenz',
  checkin: 'Anreise',
  checkout: 'Abreise',
  roomType: 'Zimmerkategorie',
  signature: (hotel) => `Bis bald,\n${hotel}`,
};

export const MAIL_MESSAGES: Record<Language, MailMessages> = { fr, en, de };
