import type { ControlLanguage } from '../shell/index.ts';

/** The words of a request's chain of holds (placed, renewed, released), in three languages. */
export interface HoldChainMessages {
  title: string;
  caption: string;
  hold: string;
  placed: string;
  ends: string;
  now: string;
  live: string;
  renewal: string;
  released: (when: string) => string;
  releasing: string;
  lapsed: string;
  captured: string;
  /** Why there may be two: the replaced one is released after the new one is placed. */
  explain: string;
}

const en: HoldChainMessages = {
  title: 'Holds',
  caption: 'Each hold on the card, oldest first',
  hold: 'Hold',
  placed: 'Placed',
  ends: 'Ends',
  now: 'Now',
  live: 'The guarantee',
  renewal: 'renewal',
  released: (when) => `Released ${when}`,
  releasing: 'Replaced, being released',
  lapsed: 'Lapsed',
  captured: 'Captured',
  explain:
    'A card network ends a hold after a few days (Visa: 4 days 18 hours). payreq places a new hold the day before, for the same amount, then releases the old one.',
};

const fr: HoldChainMessages = {
  title: 'Empreintes',
  caption: 'Chaque empreinte sur la carte, la plus ancienne d’abord',
  hold: 'Empreinte',
  placed: 'Posée',
  ends: 'Échéance',
  now: 'Aujourd’hui',
  live: 'La garantie',
  renewal: 'renouvellement',
  released: (when) => `Libérée le ${when}`,
  releasing: 'Remplacée, en cours de libération',
  lapsed: 'Échue',
  captured: 'Encaissée',
  explain:
    'Le réseau de la carte met fin à une empreinte après quelques jours (Visa : 4 jours et 18 heures). payreq en pose une nouvelle la veille, du même montant, puis libère l’ancienne.',
};

const de: HoldChainMessages = {
  title: 'Vorautorisierungen',
  caption: 'Jede Vorautorisierung auf der Karte, die älteste zuerst',
  hold: 'Vorautorisierung',
  placed: 'Gesetzt',
  ends: 'Endet',
  now: 'Jetzt',
  live: 'Die Garantie',
  renewal: 'Erneuerung',
  released: (when) => `Freigegeben am ${when}`,
  releasing: 'Ersetzt, wird freigegeben',
  lapsed: 'Abgelaufen',
  captured: 'Eingezogen',
  explain:
    'Das Kartennetz beendet eine Vorautorisierung nach einigen Tagen (Visa: 4 Tage und 18 Stunden). payreq setzt am Vortag eine neue über denselben Betrag und gibt die alte dann frei.',
};

export const HOLD_CHAIN_MESSAGES: Record<ControlLanguage, HoldChainMessages> = { en, fr, de };
