import type { Language } from '../domain/index.ts';
import type { Notice } from './messages.ts';

/**
 * What the guest reads when the guarantee needs another card (docs/lifecycle.md, "A refused
 * hold"): the bank refused the hold on the card they gave, or the card they just gave lapses
 * before the hold is placed. Both offer the card form again, on the same link.
 */
export interface GuaranteeGuestMessages {
  /** `card`: the masked card the bank refused, when the provider gave it. */
  guaranteeFailed: (card: string | null) => Notice;
  /** `month`: the month the hold is placed in, worded in the guest's language ("July 2027"). */
  cardExpiresTooSoon: (month: string) => Notice;
}

const fr: GuaranteeGuestMessages = {
  guaranteeFailed: (card) => ({
    title: 'Une autre carte est nécessaire',
    text: `Votre banque a refusé la garantie demandée sur votre carte${card ? ` ${card}` : ''}. Votre réservation n’est plus garantie : merci d’enregistrer une autre carte. Rien n’est débité maintenant.`,
  }),
  cardExpiresTooSoon: (month) => ({
    title: 'Cette carte expire trop tôt',
    text: `La carte saisie expire avant ${month}, le mois où la garantie est demandée : elle n’a pas été enregistrée. Merci d’enregistrer une carte valable au moins jusqu’à ${month}.`,
  }),
};

const en: GuaranteeGuestMessages = {
  guaranteeFailed: (card) => ({
    title: 'Another card is needed',
    text: `Your bank refused the guarantee asked for on your card${card ? ` ${card}` : ''}. Your booking is no longer guaranteed: please register another card. Nothing is charged now.`,
  }),
  cardExpiresTooSoon: (month) => ({
    title: 'This card expires too soon',
    text: `The card you entered expires before ${month}, the month the guarantee is placed: it was not registered. Please register a card valid until at least ${month}.`,
  }),
};

const de: GuaranteeGuestMessages = {
  guaranteeFailed: (card) => ({
    title: 'Eine andere Karte wird benötigt',
    text: `Ihre Bank hat die auf Ihrer Karte${card ? ` ${card}` : ''} angefragte Garantie abgelehnt. Ihre Reservierung ist nicht mehr garantiert: Bitte hinterlegen Sie eine andere Karte. Jetzt wird nichts abgebucht.`,
  }),
  cardExpiresTooSoon: (month) => ({
    title: 'Diese Karte läuft zu früh ab',
    text: `Die eingegebene Karte läuft vor ${month} ab, dem Monat, in dem die Garantie angefragt wird: Sie wurde nicht hinterlegt. Bitte hinterlegen Sie eine Karte, die mindestens bis ${month} gültig ist.`,
  }),
};

export const GUARANTEE_GUEST_MESSAGES: Record<Language, GuaranteeGuestMessages> = { fr, en, de };

/** `YYYY-MM` as the guest says it: "juillet 2027", "July 2027", "Juli 2027". */
export function monthWords(yearMonth: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${yearMonth}-01T12:00:00Z`),
  );
}
