import type { Language, MoneyReason, RequestType } from '../domain/index.ts';
import { PAYMENT_WORDING, type PaymentWording } from '../i18n/index.ts';

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
  cardRegisteredSubject: (hotel: string) => string;
  cardRegisteredIntro: (hotel: string) => string;
  /** A no-show (or other) charge of a registered card. */
  captureSubject: (hotel: string) => string;
  captureIntro: (amount: string, hotel: string) => string;
  /** Why the hotel charged the card, as it said with the capture, and its note: a charge without a reason is disputed. */
  captureReasonLabel: string;
  captureNoteLabel: string;
  moveReasons: Record<MoneyReason, string>;
  /** A hold released: nothing taken. */
  releaseSubject: (hotel: string) => string;
  releaseIntro: (amount: string, hotel: string) => string;
  /** One refund (each refund is its own e-mail). */
  refundSubject: (hotel: string) => string;
  refundIntro: (amount: string, hotel: string) => string;
  refundDelay: string;
  refundedLabel: string;
  signature: (hotel: string) => string;
  /** A reminder of a payment link not paid yet (docs/e-mail.md, "Reminders"). */
  reminderSubject: (hotel: string, type: RequestType) => string;
  reminderIntro: (hotel: string) => string;
  linkValidUntil: (when: string) => string;
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
  cardRegisteredSubject: (hotel) => `${hotel} : votre carte est enregistrée en garantie`,
  cardRegisteredIntro: (hotel) =>
    `Votre carte est enregistrée en garantie de votre réservation chez ${hotel}. Aucun montant n’a été débité.`,
  captureSubject: (hotel) => `${hotel} : un montant a été débité sur votre carte`,
  captureIntro: (amount, hotel) =>
    `${hotel} a débité ${amount} sur la carte enregistrée en garantie de votre réservation.`,
  captureReasonLabel: 'Motif',
  captureNoteLabel: 'Précision de l’établissement',
  moveReasons: {
    no_show: 'Non-présentation',
    late_cancellation: 'Annulation tardive',
    early_departure: 'Départ anticipé',
    damage: 'Dégradations',
    extras: 'Minibar et extras',
    goodwill: 'Geste commercial',
    duplicate: 'Paiement en double',
    guest_request: 'À votre demande',
    billing_error: 'Erreur de facturation',
    other: 'Autre',
  },
  releaseSubject: (hotel) => `${hotel} : la garantie de votre carte est levée`,
  releaseIntro: (amount, hotel) =>
    `${hotel} a levé la garantie de ${amount} posée sur votre carte. Aucun montant n’a été débité.`,
  refundSubject: (hotel) => `${hotel} : remboursement sur votre carte`,
  refundIntro: (amount, hotel) => `${hotel} vous a remboursé ${amount} sur la carte utilisée pour le paiement.`,
  refundDelay: 'Selon votre banque, le montant peut mettre quelques jours à apparaître sur votre compte.',
  refundedLabel: 'Montant remboursé',
  signature: (hotel) => `À bientôt,\n${hotel}`,
  reminderSubject: (hotel, type) =>
    type === 'DEPOSIT'
      ? `${hotel} : rappel : acompte pour votre réservation`
      : `${hotel} : rappel : garantie de votre réservation`,
  reminderIntro: (hotel) =>
    `${hotel} n’a pas encore reçu ce que demande votre réservation. Vous pouvez la compléter en ligne en quelques minutes.`,
  linkValidUntil: (when) => `Ce lien est valable jusqu’au ${when}.`,
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
  cardRegisteredSubject: (hotel) => `${hotel}: your card is registered as a guarantee`,
  cardRegisteredIntro: (hotel) =>
    `Your card is registered as a guarantee for your booking at ${hotel}. Nothing has been charged.`,
  captureSubject: (hotel) => `${hotel}: an amount was charged to your card`,
  captureIntro: (amount, hotel) => `${hotel} charged ${amount} to the card registered as a guarantee for your booking.`,
  captureReasonLabel: 'Reason',
  captureNoteLabel: 'The hotel’s note',
  moveReasons: {
    no_show: 'No-show',
    late_cancellation: 'Late cancellation',
    early_departure: 'Early departure',
    damage: 'Damage',
    extras: 'Minibar and extras',
    goodwill: 'Goodwill gesture',
    duplicate: 'Duplicate payment',
    guest_request: 'At your request',
    billing_error: 'Billing error',
    other: 'Other',
  },
  releaseSubject: (hotel) => `${hotel}: the guarantee on your card is released`,
  releaseIntro: (amount, hotel) =>
    `${hotel} released the guarantee of ${amount} on your card. Nothing has been charged.`,
  refundSubject: (hotel) => `${hotel}: a refund to your card`,
  refundIntro: (amount, hotel) => `${hotel} refunded ${amount} to the card you paid with.`,
  refundDelay: 'Depending on your bank, it may take a few days to show on your account.',
  refundedLabel: 'Amount refunded',
  signature: (hotel) => `See you soon,\n${hotel}`,
  reminderSubject: (hotel, type) =>
    type === 'DEPOSIT' ? `${hotel}: reminder: deposit for your booking` : `${hotel}: reminder: secure your booking`,
  reminderIntro: (hotel) =>
    `${hotel} has not yet received what your booking needs. You can complete it online in a few minutes.`,
  linkValidUntil: (when) => `This link can be used until ${when}.`,
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
  cardRegisteredSubject: (hotel) => `${hotel}: Ihre Karte ist als Garantie hinterlegt`,
  cardRegisteredIntro: (hotel) =>
    `Ihre Karte ist als Garantie für Ihre Reservierung bei ${hotel} hinterlegt. Es wurde nichts abgebucht.`,
  captureSubject: (hotel) => `${hotel}: Ihre Karte wurde belastet`,
  captureIntro: (amount, hotel) =>
    `${hotel} hat ${amount} von der Karte abgebucht, die als Garantie für Ihre Reservierung hinterlegt ist.`,
  captureReasonLabel: 'Grund',
  captureNoteLabel: 'Hinweis der Unterkunft',
  moveReasons: {
    no_show: 'Nichterscheinen (No-Show)',
    late_cancellation: 'Späte Stornierung',
    early_departure: 'Vorzeitige Abreise',
    damage: 'Schaden',
    extras: 'Minibar und Extras',
    goodwill: 'Kulanz',
    duplicate: 'Doppelte Zahlung',
    guest_request: 'Auf Ihren Wunsch',
    billing_error: 'Abrechnungsfehler',
    other: 'Sonstiges',
  },
  releaseSubject: (hotel) => `${hotel}: Die Garantie auf Ihrer Karte ist aufgehoben`,
  releaseIntro: (amount, hotel) =>
    `${hotel} hat die Garantie über ${amount} auf Ihrer Karte aufgehoben. Es wurde nichts abgebucht.`,
  refundSubject: (hotel) => `${hotel}: Erstattung auf Ihre Karte`,
  refundIntro: (amount, hotel) => `${hotel} hat Ihnen ${amount} auf die Karte erstattet, mit der Sie bezahlt haben.`,
  refundDelay: 'Je nach Bank kann es einige Tage dauern, bis der Betrag auf Ihrem Konto erscheint.',
  refundedLabel: 'Erstatteter Betrag',
  signature: (hotel) => `Bis bald,\n${hotel}`,
  reminderSubject: (hotel, type) =>
    type === 'DEPOSIT'
      ? `${hotel}: Erinnerung: Anzahlung für Ihre Reservierung`
      : `${hotel}: Erinnerung: Garantie Ihrer Reservierung`,
  reminderIntro: (hotel) =>
    `${hotel} hat das für Ihre Reservierung Nötige noch nicht erhalten. Sie können sie in wenigen Minuten online abschließen.`,
  linkValidUntil: (when) => `Dieser Link ist bis ${when} gültig.`,
};

export const MAIL_MESSAGES: Record<Language, MailMessages> = { fr, en, de };
