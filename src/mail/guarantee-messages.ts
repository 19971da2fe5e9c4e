import type { DeclineReason, Language } from '../domain/index.ts';

/**
 * The strings of the two e-mails of a failed guarantee (docs/lifecycle.md, "A refused hold"):
 * the guest's, in the request's language, and the hotel's, which carries the three languages
 * (a tenant has no language of its own; whoever reads the contact address reads one of them).
 */
export interface GuaranteeMailMessages {
  guestSubject: (hotel: string) => string;
  guestIntro: (amount: string, hotel: string) => string;
  guestAsk: string;
  /**
   * Instead of guestAsk when the bank wants the cardholder to authenticate (an off-session hold
   * cannot): only the guest can, through the same link.
   */
  guestAskAuthenticate: string;
  guestAction: string;
  hotelSubject: (reference: string) => string;
  hotelIntro: (amount: string, guest: string) => string;
  reasonLabel: string;
  failuresLabel: string;
  guestAsked: string;
  guestNotAsked: string;
  hotelAction: string;
  /** Why a bank refuses (docs/holds.md), as the hotel's alert words it. */
  declineReasons: Record<DeclineReason, string>;
  /** A soft decline before the check-in day: the hotel is told once, the card tried again. */
  declinedSubject: (reference: string) => string;
  declinedIntro: (amount: string, guest: string, reason: string) => string;
  /** What happens next; `finalOn` the check-in day in words, or null without one. */
  declinedNext: (finalOn: string | null) => string;
}

const fr: GuaranteeMailMessages = {
  guestSubject: (hotel) => `${hotel} : votre carte n’a pas pu garantir votre réservation`,
  guestIntro: (amount, hotel) =>
    `Votre banque a refusé la garantie de ${amount} que ${hotel} a demandée sur votre carte avant votre arrivée. Votre réservation n’est plus garantie.`,
  guestAsk:
    'Merci d’enregistrer une autre carte par le même lien sécurisé : rien n’est débité, la garantie est demandée à nouveau avant votre arrivée.',
  guestAskAuthenticate:
    'Votre banque demande que vous confirmiez vous-même cette carte : revenez par le même lien sécurisé pour l’enregistrer à nouveau en la confirmant (ou pour en donner une autre). Rien n’est débité, la garantie est demandée à nouveau avant votre arrivée.',
  guestAction: 'Enregistrer une autre carte',
  hotelSubject: (reference) => `Garantie refusée : ${reference}`,
  hotelIntro: (amount, guest) =>
    `La banque a refusé la garantie de ${amount} sur la carte de ${guest}. La demande attend une autre carte : la réservation n’est plus garantie.`,
  reasonLabel: 'Motif',
  failuresLabel: 'Refus pour cette demande',
  guestAsked: 'Le client a reçu un e-mail qui lui demande une autre carte, par le même lien.',
  guestNotAsked:
    'Le client n’a pas été sollicité automatiquement : contactez-le, ou annulez la demande. Une nouvelle carte par le même lien est garantie au prochain passage de la tâche quotidienne.',
  hotelAction: 'Voir la demande',
  declineReasons: {
    insufficient_funds: 'Provision insuffisante',
    do_not_honour: 'Refusée par la banque',
    expired_card: 'Carte expirée',
    lost_or_stolen: 'Carte déclarée perdue ou volée',
    authentication_required: 'Le porteur doit s’authentifier',
    try_again_later: 'Banque indisponible',
    invalid_card: 'Carte non valide',
    provider_error: 'Erreur technique du prestataire',
    other: 'Refusée, motif inconnu',
  },
  declinedSubject: (reference) => `Garantie déclinée, réessayée demain : ${reference}`,
  declinedIntro: (amount, guest, reason) =>
    `La banque a décliné la garantie de ${amount} sur la carte de ${guest} (${reason}). La carte reste la garantie de la réservation pour l’instant.`,
  declinedNext: (finalOn) =>
    finalOn
      ? `La tâche quotidienne réessaie demain matin, puis chaque matin ; un refus le ${finalOn}, jour d’arrivée, est définitif : le client est alors invité à donner une autre carte. Vous pouvez le contacter dès maintenant.`
      : 'La tâche quotidienne réessaie demain matin. Vous pouvez contacter le client dès maintenant.',
};

const en: GuaranteeMailMessages = {
  guestSubject: (hotel) => `${hotel}: your card could not guarantee your booking`,
  guestIntro: (amount, hotel) =>
    `Your bank refused the guarantee of ${amount} that ${hotel} asked for on your card before your arrival. Your booking is no longer guaranteed.`,
  guestAsk:
    'Please register another card through the same secure link: nothing is charged, and the guarantee is asked for again before your arrival.',
  guestAskAuthenticate:
    'Your bank asks you to confirm this card yourself: please come back through the same secure link to register it again and confirm it (or to give another card). Nothing is charged, and the guarantee is asked for again before your arrival.',
  guestAction: 'Register another card',
  hotelSubject: (reference) => `Guarantee refused: ${reference}`,
  hotelIntro: (amount, guest) =>
    `The bank refused the guarantee of ${amount} on the card of ${guest}. The request now waits for another card: the booking is no longer guaranteed.`,
  reasonLabel: 'Reason',
  failuresLabel: 'Refusals for this request',
  guestAsked: 'The guest was e-mailed and asked for another card, through the same link.',
  guestNotAsked:
    'The guest was not asked automatically: contact them, or cancel the request. A new card given through the same link is held at the next run of the daily job.',
  hotelAction: 'Open the request',
  declineReasons: {
    insufficient_funds: 'Insufficient funds',
    do_not_honour: 'Refused by the bank',
    expired_card: 'Card expired',
    lost_or_stolen: 'Card reported lost or stolen',
    authentication_required: 'The cardholder must authenticate',
    try_again_later: 'Bank unavailable',
    invalid_card: 'Card not valid',
    provider_error: 'Technical error at the provider',
    other: 'Refused, reason not known',
  },
  declinedSubject: (reference) => `Guarantee declined, tried again tomorrow: ${reference}`,
  declinedIntro: (amount, guest, reason) =>
    `The bank declined the guarantee of ${amount} on the card of ${guest} (${reason}). The card stays the booking’s guarantee for now.`,
  declinedNext: (finalOn) =>
    finalOn
      ? `The daily job tries again tomorrow morning, then each morning; a refusal on ${finalOn}, the check-in day, is final: the guest is then asked for another card. You may contact them now.`
      : 'The daily job tries again tomorrow morning. You may contact the guest now.',
};

const de: GuaranteeMailMessages = {
  guestSubject: (hotel) => `${hotel}: Ihre Karte konnte Ihre Reservierung nicht garantieren`,
  guestIntro: (amount, hotel) =>
    `Ihre Bank hat die Garantie über ${amount} abgelehnt, die ${hotel} vor Ihrer Anreise auf Ihrer Karte angefragt hat. Ihre Reservierung ist nicht mehr garantiert.`,
  guestAsk:
    'Bitte hinterlegen Sie über denselben sicheren Link eine andere Karte: Es wird nichts abgebucht, die Garantie wird vor Ihrer Anreise erneut angefragt.',
  guestAskAuthenticate:
    'Ihre Bank möchte, dass Sie diese Karte selbst bestätigen: Bitte kommen Sie über denselben sicheren Link zurück, um sie erneut zu hinterlegen und zu bestätigen (oder eine andere anzugeben). Es wird nichts abgebucht, die Garantie wird vor Ihrer Anreise erneut angefragt.',
  guestAction: 'Andere Karte hinterlegen',
  hotelSubject: (reference) => `Garantie abgelehnt: ${reference}`,
  hotelIntro: (amount, guest) =>
    `Die Bank hat die Garantie über ${amount} auf der Karte von ${guest} abgelehnt. Die Anfrage wartet auf eine andere Karte: Die Reservierung ist nicht mehr garantiert.`,
  reasonLabel: 'Grund',
  failuresLabel: 'Ablehnungen dieser Anfrage',
  guestAsked: 'Der Gast hat eine E-Mail erhalten, die ihn über denselben Link um eine andere Karte bittet.',
  guestNotAsked:
    'Der Gast wurde nicht automatisch angeschrieben: Kontaktieren Sie ihn oder stornieren Sie die Anfrage. Eine neue Karte über denselben Link wird beim nächsten Lauf des täglichen Jobs garantiert.',
  hotelAction: 'Anfrage öffnen',
  declineReasons: {
    insufficient_funds: 'Unzureichende Deckung',
    do_not_honour: 'Von der Bank abgelehnt',
    expired_card: 'Karte abgelaufen',
    lost_or_stolen: 'Karte als verloren oder gestohlen gemeldet',
    authentication_required: 'Der Karteninhaber muss sich authentifizieren',
    try_again_later: 'Bank nicht erreichbar',
    invalid_card: 'Karte ungültig',
    provider_error: 'Technischer Fehler beim Anbieter',
    other: 'Abgelehnt, Grund unbekannt',
  },
  declinedSubject: (reference) => `Garantie vorläufig abgelehnt, morgen erneut versucht: ${reference}`,
  declinedIntro: (amount, guest, reason) =>
    `Die Bank hat die Garantie über ${amount} auf der Karte von ${guest} vorläufig abgelehnt (${reason}). Die Karte bleibt vorerst die Garantie der Reservierung.`,
  declinedNext: (finalOn) =>
    finalOn
      ? `Der tägliche Job versucht es morgen früh erneut, dann jeden Morgen; eine Ablehnung am ${finalOn}, dem Anreisetag, ist endgültig: Der Gast wird dann um eine andere Karte gebeten. Sie können ihn schon jetzt kontaktieren.`
      : 'Der tägliche Job versucht es morgen früh erneut. Sie können den Gast schon jetzt kontaktieren.',
};

export const GUARANTEE_MAIL_MESSAGES: Record<Language, GuaranteeMailMessages> = { fr, en, de };
