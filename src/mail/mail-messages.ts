import type { Language, RequestType } from '../domain/index.js';
import { PAYMENT_WORDING, type PaymentWording } from '../i18n/index.js';

/**
 * Every string of the guest e-mails, per language. What happens to the guest's money is worded
 * once, in PAYMENT_WORDING, for the e-mails and the payment page alike.
 */
export interface MailMessages extends PaymentWording {
  /** Per request type: a deposit is paid, an imprint guarantees the booking. */
  linkSubject: (hotel: string, type: RequestType) => string;
  linkIntro: (hotel: string) => string;
  linkAction: string;
  linkFallback: string;
  confirmationSubject: (hotel: string) => string;
  confirmationIntro: (amount: string, hotel: string) => string;
  capturedLabel: string;
  paidOnLabel: string;
  cardLabel: string;
  expires: (month: string, year: string) => string;
  cardRegisteredSubject: (hotel: string) => string;
  cardRegisteredIntro: (hotel: string) => string;
  /** When a hold may be placed: from a date (two days before arrival), or before arrival. */
  holdNotice: (hotel: string, from: string | null, days: number) => string;
  checkin: string;
  checkout: string;
  roomType: string;
  signature: (hotel: string) => string;
}

const fr: MailMessages = {
  ...PAYMENT_WORDING.fr,
  linkSubject: (hotel, type) =>
    type === 'DEPOSIT' ? `${hotel} : acompte pour votre réservation` : `${hotel} : garantie de votre réservation`,
  linkIntro: (hotel) => `${hotel} vous invite à compléter votre réservation en ligne.`,
  linkAction: 'Accéder au paiement sécurisé',
  linkFallback: 'Si le bouton ne fonctionne pas, copiez ce lien dans votre navigateur :',
  confirmationSubject: (hotel) => `${hotel} : confirmation de votre acompte`,
  confirmationIntro: (amount, hotel) => `Nous confirmons le paiement de votre acompte de ${amount} à ${hotel}.`,
  capturedLabel: 'Montant débité',
  paidOnLabel: 'Date du paiement',
  cardLabel: 'Carte',
  expires: (month, year) => `expire fin ${month}/${year}`,
  cardRegisteredSubject: (hotel) => `${hotel} : votre carte est enregistrée en garantie`,
  cardRegisteredIntro: (hotel) =>
    `Votre carte est enregistrée en garantie de votre réservation chez ${hotel}. Aucun montant n'a été débité.`,
  holdNotice: (hotel, from, days) =>
    `${from ? `À partir du ${from}` : 'Avant votre arrivée'}, ${hotel} pourra bloquer au plus ce montant sur votre carte, pendant ${days} jours au maximum. Il n'est débité qu'en cas de non-présentation ; sinon il est libéré.`,
  checkin: 'Arrivée',
  checkout: 'Départ',
  roomType: 'Type de chambre',
  signature: (hotel) => `À bientôt,\n${hotel}`,
};

const en: MailMessages = {
  ...PAYMENT_WORDING.en,
  linkSubject: (hotel, type) =>
    type === 'DEPOSIT' ? `${hotel}: deposit for your booking` : `${hotel}: secure your booking`,
  linkIntro: (hotel) => `${hotel} invites you to complete your booking online.`,
  linkAction: 'Go to the secure payment page',
  linkFallback: 'If the button does not work, copy this link into your browser:',
  confirmationSubject: (hotel) => `${hotel}: your deposit is confirmed`,
  confirmationIntro: (amount, hotel) => `We confirm your deposit of ${amount} to ${hotel}.`,
  capturedLabel: 'Amount charged',
  paidOnLabel: 'Date of payment',
  cardLabel: 'Card',
  expires: (month, year) => `expires ${month}/${year}`,
  cardRegisteredSubject: (hotel) => `${hotel}: your card is registered as a guarantee`,
  cardRegisteredIntro: (hotel) =>
    `Your card is registered as a guarantee for your booking at ${hotel}. Nothing has been charged.`,
  holdNotice: (hotel, from, days) =>
    `${from ? `From ${from}` : 'Before your arrival'}, ${hotel} may hold up to this amount on your card, for ${days} days at most. It is only charged if you do not arrive; otherwise it is released.`,
  checkin: 'Check-in',
  checkout: 'Check-out',
  roomType: 'Room type',
  signature: (hotel) => `See you soon,\n${hotel}`,
};

const de: MailMessages = {
  ...PAYMENT_WORDING.de,
  linkSubject: (hotel, type) =>
    type === 'DEPOSIT' ? `${hotel}: Anzahlung für Ihre Reservierung` : `${hotel}: Garantie Ihrer Reservierung`,
  linkIntro: (hotel) => `${hotel} bittet Sie, Ihre Reservierung online abzuschließen.`,
  linkAction: 'Zur sicheren Zahlung',
  linkFallback: 'Falls die Schaltfläche nicht funktioniert, kopieren Sie diesen Link in Ihren Browser:',
  confirmationSubject: (hotel) => `${hotel}: Bestätigung Ihrer Anzahlung`,
  confirmationIntro: (amount, hotel) => `Wir bestätigen Ihre Anzahlung von ${amount} an ${hotel}.`,
  capturedLabel: 'Abgebuchter Betrag',
  paidOnLabel: 'Zahlungsdatum',
  cardLabel: 'Karte',
  expires: (month, year) => `gültig bis ${month}/${year}`,
  cardRegisteredSubject: (hotel) => `${hotel}: Ihre Karte ist als Garantie hinterlegt`,
  cardRegisteredIntro: (hotel) =>
    `Ihre Karte ist als Garantie für Ihre Reservierung bei ${hotel} hinterlegt. Es wurde nichts abgebucht.`,
  holdNotice: (hotel, from, days) =>
    `${from ? `Ab dem ${from}` : 'Vor Ihrer Anreise'} kann ${hotel} höchstens diesen Betrag auf Ihrer Karte vormerken, für höchstens ${days} Tage. Er wird nur bei Nichtanreise abgebucht, sonst freigegeben.`,
  checkin: 'Anreise',
  checkout: 'Abreise',
  roomType: 'Zimmerkategorie',
  signature: (hotel) => `Bis bald,\n${hotel}`,
};

export const MAIL_MESSAGES: Record<Language, MailMessages> = { fr, en, de };
