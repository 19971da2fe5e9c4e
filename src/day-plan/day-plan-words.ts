import type { DeclineReason, Language, Status } from '../domain/index.ts';
import { plural } from '../i18n/index.ts';

/**
 * The words of the hotel's day, shared by the back office's Today page and the daily digest
 * e-mail, so both say the same thing the same way. English, French, German; a string missing
 * in one language is a type error.
 */
export interface DayPlanWords {
  locale: string;
  /** "label: value", with French's space before the colon. */
  pair: (label: string, value: string) => string;
  failedGuarantees: string;
  failedGuaranteesIntro: string;
  noFailedGuarantees: string;
  /** Holds declined softly before the check-in day, tried again each morning. */
  declinedHolds: string;
  declinedHoldsIntro: string;
  noDeclinedHolds: string;
  /** The bank's answer, in a word of the closed list. */
  declinedBecause: Record<DeclineReason, string>;
  /** When the refusal becomes final: the check-in day's run. */
  finalOn: (date: string) => string;
  lapsingHolds: string;
  lapsingHoldsIntro: string;
  noLapsingHolds: string;
  incidents: string;
  noIncidents: string;
  inDoubt: string;
  noInDoubt: string;
  arrivalsToday: (date: string) => string;
  arrivalsTomorrow: (date: string) => string;
  noArrivals: string;
  yesterday: (date: string) => string;
  created: (n: number) => string;
  completed: (n: number) => string;
  taken: string;
  refunded: string;
  nothingMoved: string;
  /** A request's guarantee in a word: money held, paid or a card registered, or not. */
  guaranteed: string;
  notGuaranteed: string;
  statuses: Record<Status, string>;
  holdEnds: (when: string) => string;
  checkout: (date: string) => string;
  noDecisionDate: string;
  failedOn: (when: string) => string;
  incidentNeed: string;
  inDoubtNeed: string;
  more: string;
  notPaidOut: string;
  notPaidOutIntro: (days: number) => string;
  noNotPaidOut: string;
  /** A ledger movement in a word: a guest's payment, a capture, a refund. */
  movements: Record<string, string>;
  openPayouts: string;
  digestSubject: (hotel: string, date: string) => string;
  digestIntro: (hotel: string, date: string, zone: string) => string;
  openToday: string;
}

const en: DayPlanWords = {
  locale: 'en-GB',
  pair: (label, value) => `${label}: ${value}`,
  failedGuarantees: 'Failed guarantees',
  failedGuaranteesIntro: 'The daily job could not hold these cards: the stay is not guaranteed. Contact the guest.',
  noFailedGuarantees: 'No failed guarantee.',
  declinedHolds: 'Holds declined, tried again',
  declinedHoldsIntro:
    'The bank declined these holds for now (insufficient funds, bank unavailable): the card stays the guarantee, the daily job tries again each morning, and a refusal on the check-in day is final. Contact the guest if the stay must be guaranteed sooner.',
  noDeclinedHolds: 'No hold declined.',
  declinedBecause: {
    insufficient_funds: 'insufficient funds',
    do_not_honour: 'refused by the bank',
    expired_card: 'card expired',
    lost_or_stolen: 'card reported lost or stolen',
    authentication_required: 'the cardholder must authenticate',
    try_again_later: 'bank unavailable',
    invalid_card: 'card not valid',
    provider_error: 'technical error at the provider',
    other: 'reason not known',
  },
  finalOn: (date) => `tried again tomorrow; final on ${date}`,
  lapsingHolds: 'Holds about to lapse',
  lapsingHoldsIntro:
    'These holds end within 24 hours, before the hotel decides (check-out, or the day after check-in without one): capture or release them before they lapse.',
  noLapsingHolds: 'No hold about to lapse.',
  incidents: 'Incidents',
  noIncidents: 'No open incident.',
  inDoubt: 'Operations in doubt',
  noInDoubt: 'No operation in doubt.',
  arrivalsToday: (date) => `Arrivals today, ${date}`,
  arrivalsTomorrow: (date) => `Arrivals tomorrow, ${date}`,
  noArrivals: 'No arrival with a payment request.',
  yesterday: (date) => `Yesterday, ${date}`,
  created: (n) => plural('en', n, { one: '# request made', other: '# requests made' }),
  completed: (n) =>
    plural('en', n, { one: '# deposit paid or card registered', other: '# deposits paid or cards registered' }),
  taken: 'Taken',
  refunded: 'Refunded',
  nothingMoved: 'No money moved.',
  guaranteed: 'Guaranteed',
  notGuaranteed: 'Not guaranteed',
  statuses: {
    NOT_INITIATED: 'link not used yet',
    PENDING: 'payment under way',
    AUTHORISED: 'card registered',
    AUTHORISED_TO_VALIDATE: 'amount held',
    CAPTURED: 'paid',
    REFUSED: 'refused',
    // An arrival's request in ERROR is a guarantee the bank refused: what waits is another card.
    ERROR: 'card refused, waiting for another',
    CANCELLED: 'cancelled',
    EXPIRED: 'expired',
    REFUNDED: 'refunded',
  },
  holdEnds: (when) => `hold ends ${when}`,
  checkout: (date) => `check-out ${date}`,
  noDecisionDate: 'no stay dates',
  failedOn: (when) => `failed ${when}`,
  incidentNeed: 'payreq’s books and the provider’s differ: see the Books page.',
  inDoubtNeed: 'Nobody knows yet whether the money moved: do not repeat it, reconciliation settles it.',
  more: 'There are more: the back office lists them all.',
  notPaidOut: 'Not paid out',
  notPaidOutIntro: (days) =>
    `Money captured or refunded more than ${days} days ago that no imported remittance of the provider holds: import the missing bank reconciliation reports, or ask the provider.`,
  noNotPaidOut: 'Nothing: every older payment and refund is in an imported remittance.',
  movements: { payment: 'guest payment', capture: 'capture', refund: 'refund' },
  openPayouts: 'Open the Payouts page',
  digestSubject: (hotel, date) => `${hotel}: your day, ${date}`,
  digestIntro: (hotel, date, zone) => `What needs someone at ${hotel} today, ${date} (times in ${zone}).`,
  openToday: 'Open the Today page',
};

const fr: DayPlanWords = {
  locale: 'fr-FR',
  pair: (label, value) => `${label}\u00a0: ${value}`,
  failedGuarantees: 'Garanties en échec',
  failedGuaranteesIntro:
    'Le traitement quotidien n’a pas pu bloquer ces cartes : le séjour n’est pas garanti. Contactez le client.',
  noFailedGuarantees: 'Aucune garantie en échec.',
  declinedHolds: 'Garanties déclinées, réessayées',
  declinedHoldsIntro:
    'La banque a décliné ces garanties pour l’instant (provision insuffisante, banque indisponible) : la carte reste la garantie, le traitement quotidien réessaie chaque matin, et un refus le jour d’arrivée est définitif. Contactez le client si le séjour doit être garanti plus tôt.',
  noDeclinedHolds: 'Aucune garantie déclinée.',
  declinedBecause: {
    insufficient_funds: 'provision insuffisante',
    do_not_honour: 'refusée par la banque',
    expired_card: 'carte expirée',
    lost_or_stolen: 'carte déclarée perdue ou volée',
    authentication_required: 'le porteur doit s’authentifier',
    try_again_later: 'banque indisponible',
    invalid_card: 'carte non valide',
    provider_error: 'erreur technique du prestataire',
    other: 'motif inconnu',
  },
  finalOn: (date) => `réessayée demain ; définitive le ${date}`,
  lapsingHolds: 'Empreintes sur le point d’expirer',
  lapsingHoldsIntro:
    'Ces empreintes prennent fin dans les 24 heures, avant la décision de l’hôtel (le départ, ou le lendemain de l’arrivée à défaut) : encaissez-les ou levez-les avant qu’elles n’expirent.',
  noLapsingHolds: 'Aucune empreinte sur le point d’expirer.',
  incidents: 'Incidents',
  noIncidents: 'Aucun incident ouvert.',
  inDoubt: 'Opérations incertaines',
  noInDoubt: 'Aucune opération incertaine.',
  arrivalsToday: (date) => `Arrivées aujourd’hui, ${date}`,
  arrivalsTomorrow: (date) => `Arrivées demain, ${date}`,
  noArrivals: 'Aucune arrivée avec une demande de paiement.',
  yesterday: (date) => `Hier, ${date}`,
  created: (n) => plural('fr', n, { one: '# demande créée', other: '# demandes créées' }),
  completed: (n) =>
    plural('fr', n, {
      one: '# acompte payé ou carte enregistrée',
      other: '# acomptes payés ou cartes enregistrées',
    }),
  taken: 'Encaissé',
  refunded: 'Remboursé',
  nothingMoved: 'Aucun mouvement d’argent.',
  guaranteed: 'Garanti',
  notGuaranteed: 'Non garanti',
  statuses: {
    NOT_INITIATED: 'lien pas encore utilisé',
    PENDING: 'paiement en cours',
    AUTHORISED: 'carte enregistrée',
    AUTHORISED_TO_VALIDATE: 'montant bloqué',
    CAPTURED: 'payé',
    REFUSED: 'refusé',
    ERROR: 'carte refusée, en attente d’une autre',
    CANCELLED: 'annulé',
    EXPIRED: 'expiré',
    REFUNDED: 'remboursé',
  },
  holdEnds: (when) => `fin de l’empreinte ${when}`,
  checkout: (date) => `départ ${date}`,
  noDecisionDate: 'pas de dates de séjour',
  failedOn: (when) => `échec ${when}`,
  incidentNeed: 'Les comptes de payreq et ceux du prestataire diffèrent : voir la page Comptes.',
  inDoubtNeed: 'On ne sait pas encore si l’argent a bougé : ne la refaites pas, le rapprochement s’en charge.',
  more: 'Il y en a d’autres : le back-office les montre toutes.',
  notPaidOut: 'Non versé',
  notPaidOutIntro: (days) =>
    `L’argent encaissé ou remboursé il y a plus de ${days} jours qu’aucune remise importée du prestataire ne contient : importez les journaux de rapprochement bancaire manquants, ou interrogez le prestataire.`,
  noNotPaidOut: 'Rien : chaque paiement et remboursement plus ancien figure dans une remise importée.',
  movements: { payment: 'paiement du client', capture: 'capture', refund: 'remboursement' },
  openPayouts: 'Ouvrir la page Versements',
  digestSubject: (hotel, date) => `${hotel} : votre journée du ${date}`,
  digestIntro: (hotel, date, zone) =>
    `Ce qui demande l’attention de ${hotel} aujourd’hui, ${date} (heures en ${zone}).`,
  openToday: 'Ouvrir la page Aujourd’hui',
};

const de: DayPlanWords = {
  locale: 'de-DE',
  pair: (label, value) => `${label}: ${value}`,
  failedGuarantees: 'Fehlgeschlagene Garantien',
  failedGuaranteesIntro:
    'Der tägliche Lauf konnte diese Karten nicht vorautorisieren: Der Aufenthalt ist nicht garantiert. Kontaktieren Sie den Gast.',
  noFailedGuarantees: 'Keine fehlgeschlagene Garantie.',
  declinedHolds: 'Vorläufig abgelehnte Garantien, erneut versucht',
  declinedHoldsIntro:
    'Die Bank hat diese Garantien vorerst abgelehnt (Deckung unzureichend, Bank nicht erreichbar): Die Karte bleibt die Garantie, der tägliche Lauf versucht es jeden Morgen erneut, und eine Ablehnung am Anreisetag ist endgültig. Kontaktieren Sie den Gast, wenn der Aufenthalt früher garantiert sein muss.',
  noDeclinedHolds: 'Keine vorläufig abgelehnte Garantie.',
  declinedBecause: {
    insufficient_funds: 'unzureichende Deckung',
    do_not_honour: 'von der Bank abgelehnt',
    expired_card: 'Karte abgelaufen',
    lost_or_stolen: 'Karte als verloren oder gestohlen gemeldet',
    authentication_required: 'der Karteninhaber muss sich authentifizieren',
    try_again_later: 'Bank nicht erreichbar',
    invalid_card: 'Karte ungültig',
    provider_error: 'technischer Fehler beim Anbieter',
    other: 'Grund unbekannt',
  },
  finalOn: (date) => `morgen erneut versucht; endgültig am ${date}`,
  lapsingHolds: 'Bald ablaufende Vorautorisierungen',
  lapsingHoldsIntro:
    'Diese Vorautorisierungen enden innerhalb von 24 Stunden, vor der Entscheidung des Hotels (Abreise, oder der Tag nach der Anreise ohne Abreisedatum): Buchen Sie sie ab oder geben Sie sie frei, bevor sie ablaufen.',
  noLapsingHolds: 'Keine bald ablaufende Vorautorisierung.',
  incidents: 'Unstimmigkeiten',
  noIncidents: 'Keine offene Unstimmigkeit.',
  inDoubt: 'Ungeklärte Vorgänge',
  noInDoubt: 'Kein ungeklärter Vorgang.',
  arrivalsToday: (date) => `Anreisen heute, ${date}`,
  arrivalsTomorrow: (date) => `Anreisen morgen, ${date}`,
  noArrivals: 'Keine Anreise mit einer Zahlungsanfrage.',
  yesterday: (date) => `Gestern, ${date}`,
  created: (n) => plural('de', n, { one: '# Anfrage erstellt', other: '# Anfragen erstellt' }),
  completed: (n) =>
    plural('de', n, {
      one: '# Anzahlung bezahlt oder Karte hinterlegt',
      other: '# Anzahlungen bezahlt oder Karten hinterlegt',
    }),
  taken: 'Abgebucht',
  refunded: 'Erstattet',
  nothingMoved: 'Kein Geld bewegt.',
  guaranteed: 'Garantiert',
  notGuaranteed: 'Nicht garantiert',
  statuses: {
    NOT_INITIATED: 'Link noch nicht genutzt',
    PENDING: 'Zahlung läuft',
    AUTHORISED: 'Karte hinterlegt',
    AUTHORISED_TO_VALIDATE: 'Betrag vorautorisiert',
    CAPTURED: 'bezahlt',
    REFUSED: 'abgelehnt',
    ERROR: 'Karte abgelehnt, wartet auf eine andere',
    CANCELLED: 'storniert',
    EXPIRED: 'abgelaufen',
    REFUNDED: 'erstattet',
  },
  holdEnds: (when) => `Vorautorisierung endet ${when}`,
  checkout: (date) => `Abreise ${date}`,
  noDecisionDate: 'keine Aufenthaltsdaten',
  failedOn: (when) => `fehlgeschlagen ${when}`,
  incidentNeed: 'Die Buchungen von payreq und die des Anbieters weichen ab: siehe die Seite Buchhaltung.',
  inDoubtNeed: 'Noch weiß niemand, ob das Geld bewegt wurde: nicht wiederholen, der Abgleich klärt es.',
  more: 'Es gibt weitere: Das Backoffice zeigt alle.',
  notPaidOut: 'Nicht ausgezahlt',
  notPaidOutIntro: (days) =>
    `Geld, das vor mehr als ${days} Tagen abgebucht oder erstattet wurde und das keine importierte Auszahlung des Anbieters enthält: Importieren Sie die fehlenden Bankabgleichsberichte oder fragen Sie den Anbieter.`,
  noNotPaidOut: 'Nichts: Jede ältere Zahlung und Erstattung ist in einer importierten Auszahlung.',
  movements: { payment: 'Zahlung des Gastes', capture: 'Abbuchung', refund: 'Erstattung' },
  openPayouts: 'Seite Auszahlungen öffnen',
  digestSubject: (hotel, date) => `${hotel}: Ihr Tag, ${date}`,
  digestIntro: (hotel, date, zone) => `Was heute, ${date}, bei ${hotel} Aufmerksamkeit braucht (Zeiten in ${zone}).`,
  openToday: 'Seite Heute öffnen',
};

export const DAY_PLAN_WORDS: Record<Language, DayPlanWords> = { en, fr, de };

/** Money held or taken, or a card registered: the stay is guaranteed. */
export function isGuaranteed(status: Status): boolean {
  return status === 'AUTHORISED' || status === 'AUTHORISED_TO_VALIDATE' || status === 'CAPTURED';
}
