import type { Language } from '../domain/index.ts';

/**
 * What the guest is told about the money, in the same words on the payment page and in the
 * e-mail: what an IMPRINT or a DEPOSIT does with their card. A promise about money is written
 * once, so the page and the e-mail cannot drift apart.
 */
export interface PaymentWording {
  /** BCP 47 locale for numbers, amounts and dates. */
  locale: string;
  greeting: (name: string) => string;
  reference: string;
  imprintAmountLabel: string;
  depositAmountLabel: string;
  /**
   * Said before any card is given (the link, the form): what will happen, in the future tense.
   * null amount: an IMPRINT of 0, a plain card guarantee.
   */
  imprintExplanation: (amount: string | null) => string;
  depositExplanation: (amount: string) => string;
  /** When a hold may be placed: from a date (two days before arrival), or before arrival. */
  holdNotice: (hotel: string, from: string | null, days: number) => string;
  /** A stay that outlasts one hold: renewed before it ends, until `until`, never more held. */
  holdRenewed: (until: string) => string;
  checkin: string;
  checkout: string;
  roomType: string;
  cardLabel: string;
  expires: (month: string, year: string) => string;
  paidOnLabel: string;
}

export const PAYMENT_WORDING: Record<Language, PaymentWording> = {
  fr: {
    locale: 'fr-FR',
    greeting: (name) => `Bonjour ${name},`,
    reference: 'Référence',
    imprintAmountLabel: 'Montant maximal garanti',
    depositAmountLabel: 'Montant à payer',
    imprintExplanation: (amount) =>
      amount
        ? `Aucun montant n’est débité maintenant. Votre carte sera enregistrée en garantie : jusqu’à ${amount} pourront être bloqués sur votre carte avant votre arrivée, puis débités en cas de non-présentation.`
        : 'Aucun montant n’est débité maintenant. Votre carte sera enregistrée en garantie de votre réservation.',
    depositExplanation: (amount) => `Le montant de ${amount} sera débité immédiatement sur votre carte.`,
    holdNotice: (hotel, from, days) =>
      `${from ? `À partir du ${from}` : 'Avant votre arrivée'}, ${hotel} pourra bloquer au plus ce montant sur votre carte, pendant ${days} jours au maximum. Il n’est débité qu’en cas de non-présentation ; sinon il est libéré.`,
    holdRenewed: (until) =>
      `Votre séjour dépassant cette durée, le blocage est renouvelé avant sa fin, du même montant, jusqu’au ${until} : jamais plus que ce montant n’est bloqué.`,
    checkin: 'Arrivée',
    checkout: 'Départ',
    roomType: 'Type de chambre',
    cardLabel: 'Carte',
    expires: (month, year) => `expire fin ${month}/${year}`,
    paidOnLabel: 'Date du paiement',
  },
  en: {
    locale: 'en-GB',
    greeting: (name) => `Hello ${name},`,
    reference: 'Reference',
    imprintAmountLabel: 'Maximum amount guaranteed',
    depositAmountLabel: 'Amount to pay',
    imprintExplanation: (amount) =>
      amount
        ? `No money is taken now. Your card will be registered as a guarantee: up to ${amount} may be held on your card before your arrival, and charged if you do not arrive (no-show).`
        : 'No money is taken now. Your card will be registered as a guarantee for your booking.',
    depositExplanation: (amount) => `${amount} will be charged to your card now.`,
    holdNotice: (hotel, from, days) =>
      `${from ? `From ${from}` : 'Before your arrival'}, ${hotel} may hold up to this amount on your card, for ${days} days at most. It is only charged if you do not arrive; otherwise it is released.`,
    holdRenewed: (until) =>
      `As your stay lasts longer, the hold is renewed before it ends, for the same amount, until ${until}: never more than this amount is held.`,
    checkin: 'Check-in',
    checkout: 'Check-out',
    roomType: 'Room type',
    cardLabel: 'Card',
    expires: (month, year) => `expires ${month}/${year}`,
    paidOnLabel: 'Date of payment',
  },
  de: {
    locale: 'de-DE',
    greeting: (name) => `Guten Tag ${name},`,
    reference: 'Referenz',
    imprintAmountLabel: 'Garantierter Höchstbetrag',
    depositAmountLabel: 'Zu zahlender Betrag',
    imprintExplanation: (amount) =>
      amount
        ? `Es wird jetzt nichts abgebucht. Ihre Karte wird als Garantie hinterlegt: Bis zu ${amount} können vor Ihrer Anreise auf Ihrer Karte reserviert und bei Nichtanreise belastet werden.`
        : 'Es wird jetzt nichts abgebucht. Ihre Karte wird als Garantie für Ihre Reservierung hinterlegt.',
    depositExplanation: (amount) => `Der Betrag von ${amount} wird sofort von Ihrer Karte abgebucht.`,
    holdNotice: (hotel, from, days) =>
      `${from ? `Ab dem ${from}` : 'Vor Ihrer Anreise'} kann ${hotel} höchstens diesen Betrag auf Ihrer Karte vormerken, für höchstens ${days} Tage. Er wird nur bei Nichtanreise abgebucht, sonst freigegeben.`,
    holdRenewed: (until) =>
      `Da Ihr Aufenthalt länger dauert, wird die Vormerkung vor ihrem Ende über denselben Betrag erneuert, bis zum ${until}: Es wird nie mehr als dieser Betrag vorgemerkt.`,
    checkin: 'Anreise',
    checkout: 'Abreise',
    roomType: 'Zimmerkategorie',
    cardLabel: 'Karte',
    expires: (month, year) => `gültig bis ${month}/${year}`,
    paidOnLabel: 'Zahlungsdatum',
  },
};
