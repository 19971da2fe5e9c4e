import type { Language } from '../domain/index.js';
import { PAYMENT_WORDING, type PaymentWording } from '../i18n/index.js';

/**
 * Every string of the guest e-mails, per language. What happens to the guest's money is worded
 * once, in PAYMENT_WORDING, for the e-mails and the payment page alike.
 */
export interface MailMessages extends PaymentWording {
  linkSubject: (hotel: string) => string;
  linkIntro: (hotel: string) => string;
  linkAction: string;
  linkFallback: string;
  confirmationSubject: (hotel: string) => string;
  confirmationIntro: (amount: string, hotel: string) => string;
  capturedLabel: string;
  checkin: string;
  checkout: string;
  roomType: string;
  signature: (hotel: string) => string;
}

const fr: MailMessages = {
  ...PAYMENT_WORDING.fr,
  linkSubject: (hotel) => `${hotel} : garantie de votre réservation`,
  linkIntro: (hotel) => `${hotel} vous invite à compléter votre réservation en ligne.`,
  linkAction: 'Accéder au paiement sécurisé',
  linkFallback: 'Si le bouton ne fonctionne pas, copiez ce lien dans votre navigateur :',
  confirmationSubject: (hotel) => `${hotel} : confirmation de votre acompte`,
  confirmationIntro: (amount, hotel) => `Nous confirmons le paiement de votre acompte de ${amount} à ${hotel}.`,
  capturedLabel: 'Montant débité',
  checkin: 'Arrivée',
  checkout: 'Départ',
  roomType: 'Type de chambre',
  signature: (hotel) => `À bientôt,\n${hotel}`,
};

const en: MailMessages = {
  ...PAYMENT_WORDING.en,
  linkSubject: (hotel) => `${hotel}: secure your booking`,
  linkIntro: (hotel) => `${hotel} invites you to complete your booking online.`,
  linkAction: 'Go to the secure payment page',
  linkFallback: 'If the button does not work, copy this link into your browser:',
  confirmationSubject: (hotel) => `${hotel}: your deposit is confirmed`,
  confirmationIntro: (amount, hotel) => `We confirm your deposit of ${amount} to ${hotel}.`,
  capturedLabel: 'Amount charged',
  checkin: 'Check-in',
  checkout: 'Check-out',
  roomType: 'Room type',
  signature: (hotel) => `See you soon,\n${hotel}`,
};

const de: MailMessages = {
  ...PAYMENT_WORDING.de,
  linkSubject: (hotel) => `${hotel}: Garantie Ihrer Reservierung`,
  linkIntro: (hotel) => `${hotel} bittet Sie, Ihre Reservierung online abzuschließen.`,
  linkAction: 'Zur sicheren Zahlung',
  linkFallback: 'Falls die Schaltfläche nicht funktioniert, kopieren Sie diesen Link in Ihren Browser:',
  confirmationSubject: (hotel) => `${hotel}: Bestätigung Ihrer Anzahlung`,
  confirmationIntro: (amount, hotel) => `Wir bestätigen Ihre Anzahlung von ${amount} an ${hotel}.`,
  capturedLabel: 'Abgebuchter Betrag',
  checkin: 'Anreise',
  checkout: 'Abreise',
  roomType: 'Zimmerkategorie',
  signature: (hotel) => `Bis bald,\n${hotel}`,
};

export const MAIL_MESSAGES: Record<Language, MailMessages> = { fr, en, de };
