import type { ControlLanguage } from '../shell/index.ts';

/**
 * The back office's words for a request the bank refused (REFUSED, final) and for "Send a new
 * link" (docs/lifecycle.md, "A refused card"), in English, French and German.
 */
export interface RefusalControlMessages {
  /** On a REFUSED request: what the bank said, when, and that the link is over. */
  refusedTitle: string;
  refusedText: (when: string, reason: string) => string;
  /** A refusal recorded before payreq kept the bank's reason. */
  reasonNotKept: string;
  refusedNextSteps: string;
  /** The provider operations of a refused request: none, and why. */
  noMoneyMoved: string;
  /** The action, its hint, and the links between the two requests. */
  sendNewLink: string;
  sendNewLinkHint: (email: string) => string;
  replacedBy: string;
  replaces: string;
  /** After the action: the new request and where its link went. */
  newLinkMailed: (reference: string, email: string) => string;
  newLinkToCopy: (reference: string) => string;
  newLinkAlready: (reference: string) => string;
}

const en: RefusalControlMessages = {
  refusedTitle: 'The bank refused the guest’s card',
  refusedText: (when, reason) => `${when}: ${reason}.`,
  reasonNotKept: 'reason not recorded',
  refusedNextSteps:
    'A refused request is final: its link no longer takes a card. To ask the guest again, send a new link: a new request for the same guest, amount and reservation.',
  noMoneyMoved: 'No money moved: the bank refused the card before anything was taken (its answer is above).',
  sendNewLink: 'Send a new link',
  sendNewLinkHint: (email) => `A new request for the same guest, amount and reservation; its link goes to ${email}.`,
  replacedBy: 'Replaced by',
  replaces: 'Replaces',
  newLinkMailed: (reference, email) =>
    `New request ${reference} made; its payment link e-mail is on its way to ${email}.`,
  newLinkToCopy: (reference) =>
    `New request ${reference} made. This hotel does not e-mail payment links: copy the link below and send it to the guest.`,
  newLinkAlready: (reference) => `A new request was already made for this one: ${reference}.`,
};

const fr: RefusalControlMessages = {
  refusedTitle: 'La banque a refusé la carte du client',
  refusedText: (when, reason) => `${when} : ${reason}.`,
  reasonNotKept: 'motif non enregistré',
  refusedNextSteps:
    'Une demande refusée est définitive : son lien n’accepte plus de carte. Pour redemander au client, envoyez un nouveau lien : une nouvelle demande pour le même client, le même montant et la même réservation.',
  noMoneyMoved:
    'Aucun mouvement d’argent : la banque a refusé la carte avant tout débit (sa réponse figure plus haut).',
  sendNewLink: 'Envoyer un nouveau lien',
  sendNewLinkHint: (email) =>
    `Une nouvelle demande pour le même client, le même montant et la même réservation ; son lien part à ${email}.`,
  replacedBy: 'Remplacée par',
  replaces: 'Remplace',
  newLinkMailed: (reference, email) =>
    `Nouvelle demande ${reference} créée ; l’e-mail avec son lien de paiement part à ${email}.`,
  newLinkToCopy: (reference) =>
    `Nouvelle demande ${reference} créée. Cet établissement n’envoie pas les liens par e-mail : copiez le lien ci-dessous et envoyez-le au client.`,
  newLinkAlready: (reference) => `Une nouvelle demande a déjà été créée pour celle-ci : ${reference}.`,
};

const de: RefusalControlMessages = {
  refusedTitle: 'Die Bank hat die Karte des Gastes abgelehnt',
  refusedText: (when, reason) => `${when}: ${reason}.`,
  reasonNotKept: 'Grund nicht erfasst',
  refusedNextSteps:
    'Eine abgelehnte Anfrage ist endgültig: Ihr Link nimmt keine Karte mehr an. Um den Gast erneut zu bitten, senden Sie einen neuen Link: eine neue Anfrage für denselben Gast, Betrag und dieselbe Reservierung.',
  noMoneyMoved:
    'Kein Geld bewegt: Die Bank hat die Karte abgelehnt, bevor etwas belastet wurde (ihre Antwort steht oben).',
  sendNewLink: 'Neuen Link senden',
  sendNewLinkHint: (email) =>
    `Eine neue Anfrage für denselben Gast, Betrag und dieselbe Reservierung; ihr Link geht an ${email}.`,
  replacedBy: 'Ersetzt durch',
  replaces: 'Ersetzt',
  newLinkMailed: (reference, email) =>
    `Neue Anfrage ${reference} erstellt; die E-Mail mit ihrem Zahlungslink ist unterwegs an ${email}.`,
  newLinkToCopy: (reference) =>
    `Neue Anfrage ${reference} erstellt. Diese Unterkunft versendet Zahlungslinks nicht per E-Mail: Kopieren Sie den Link unten und senden Sie ihn dem Gast.`,
  newLinkAlready: (reference) => `Für diese Anfrage wurde bereits eine neue erstellt: ${reference}.`,
};

export const REFUSAL_CONTROL_MESSAGES: Record<ControlLanguage, RefusalControlMessages> = { en, fr, de };
