/**
 * The words of the Books page (/control/books) and of a request's books incidents, in English,
 * French and German. A string missing in one language is a type error. "What to do" stays in
 * the shell's books.need: the Today page reads it too.
 */
import type { ControlLanguage } from '../shell/index.ts';

const en = {
  title: 'Books',
  intro:
    'Where payreq’s books and the payment provider’s differ, or are not known yet. A check compares, for each order, the provider’s net (taken less given back) with payreq’s captured less refunded amounts, and looks for holds left open.',
  lastCheck: 'Last checks',
  noCheck:
    'No books check has finished yet. It runs every day (the scheduled job “Books check”), or when the operator runs it.',
  checkSummary: (since: string, orders: number, agree: number, disagree: number, inDoubt: number) =>
    `Orders moved since ${since}: ${orders} checked, ${agree} agree, ${disagree} disagree, ${inDoubt} in doubt.`,
  everyTenant: 'every hotel',
  incidents: 'Open disagreements',
  noIncidents: 'No disagreement: every order checked agrees with the provider’s books.',
  inDoubt: 'Operations in doubt',
  noInDoubt: 'No operation in doubt.',
  misplaced: 'Money to give back',
  noMisplaced: 'No money waiting to be given back.',
  providerNet: 'Provider net',
  payreqNet: 'payreq net',
  openHolds: 'Open holds',
  since: 'Since',
  lastSeen: 'Last seen',
  reason: 'Reason',
  deleted: 'deleted',
  resolved: 'Resolved',
  agreesAgain: 'The books agree again.',
  providerTookMore: (diff: string) =>
    `The provider took ${diff} more than payreq counts. Look the order up in the provider’s back office: if that money should not have been taken, refund it there. The next check closes this line once the books agree.`,
  providerHasLess: (diff: string) =>
    `payreq counts ${diff} more than the provider holds: refunded or cancelled outside payreq, or never taken. Look the order up in the provider’s back office before any further refund, and tell the guest what really happened.`,
  holdOpen: (status: string) =>
    `A hold is still open at the provider although the request is “${status}”: cancel it in the provider’s back office, so the guest’s card is freed.`,
  undecided: (hours: number) =>
    `Undecided for more than ${hours} hours: look the order up in the provider’s back office, then record here what it shows.`,
  providerShows: 'At the provider',
  settleAs: 'What the provider shows',
  settleDone: 'It happened',
  settleRefused: 'Nothing moved (refused)',
  settleReason: 'What you saw (kept in the audit)',
  settleTransaction: 'The provider’s transaction, if none is shown',
  settle: 'Record',
  settled: 'Recorded. The request follows what you recorded.',
  holdMissing: (status: string) =>
    `The request is “${status}”, but its hold is not open at the provider (refused, lapsed or released there): the stay is not guaranteed. Look the order up in the provider’s back office, and ask the guest for another card if it is gone.`,
  holdDiffers:
    'The request’s hold is open at the provider for another amount than the request’s: look the order up in the provider’s back office before capturing.',
  secondHold:
    'A second hold is open at the provider beside the request’s own: payreq cancels it at its next reconciliation; if it stays, cancel it in the provider’s back office.',
  captureDiffers:
    'The provider shows the money on another transaction than the request’s own: look the order up in the provider’s back office.',
  holdLapsed:
    'The provider let the request’s hold lapse before the stay was decided: nothing can be captured on it any more. Ask the guest for another card if the stay still needs a guarantee.',
  disputed:
    'The cardholder disputed this payment with their bank: answer the dispute in the provider’s dashboard before its deadline, with the booking’s evidence.',
  waitReconcile:
    'The provider did not answer in time: nobody knows yet whether the money moved. Do not repeat the operation. Reconciliation settles it from the provider’s view within minutes; if it stays here for more than an hour, check that the provider account works.',
  giveBack:
    'Money arrived where it should not (shown on the request). payreq gives it back automatically; if it stays here, give it back in the provider’s back office.',
  handContradicted:
    'The provider answered late, after this operation was settled by hand, and says it went otherwise (see the audit, “ledger.late_answer”): look the order up in the provider’s back office and put the difference right there.',
  confirmTitle: 'Record it anyway?',
  confirmWhy: {
    young: (hours: number) =>
      `This operation is younger than ${hours} hours: reconciliation may still settle it from the provider’s view.`,
    contradicts: () => 'What you record contradicts what the provider shows now.',
    unchecked: () => 'The provider’s view could not be read, so the transaction you named could not be checked.',
  } as Record<'young' | 'contradicts' | 'unchecked', (hours: number) => string>,
  confirmShows: 'The provider shows',
  confirm: 'Record it anyway',
  cancel: 'Back to the Books page',
};

export type BooksMessages = typeof en;

const fr: BooksMessages = {
  title: 'Comptes',
  intro:
    'Là où les comptes de payreq et ceux du prestataire de paiement diffèrent, ou ne sont pas encore connus. Une vérification compare, pour chaque commande, le net du prestataire (encaissé moins remboursé) aux montants capturés moins remboursés de payreq, et cherche les empreintes restées ouvertes.',
  lastCheck: 'Dernières vérifications',
  noCheck:
    'Aucune vérification des comptes n’est encore terminée. Elle a lieu chaque jour (tâche planifiée « Contrôle des comptes »), ou quand l’exploitant la lance.',
  checkSummary: (since: string, orders: number, agree: number, disagree: number, inDoubt: number) =>
    `Commandes modifiées depuis le ${since} : ${orders} vérifiées, ${agree} concordantes, ${disagree} en désaccord, ${inDoubt} incertaines.`,
  everyTenant: 'tous les établissements',
  incidents: 'Désaccords ouverts',
  noIncidents: 'Aucun désaccord : chaque commande vérifiée concorde avec les comptes du prestataire.',
  inDoubt: 'Opérations incertaines',
  noInDoubt: 'Aucune opération incertaine.',
  misplaced: 'Argent à rendre',
  noMisplaced: 'Aucun montant en attente d’être rendu.',
  providerNet: 'Net du prestataire',
  payreqNet: 'Net payreq',
  openHolds: 'Empreintes ouvertes',
  since: 'Depuis',
  lastSeen: 'Vu le',
  reason: 'Motif',
  deleted: 'supprimée',
  resolved: 'Résolu le',
  agreesAgain: 'Les comptes concordent de nouveau.',
  providerTookMore: (diff: string) =>
    `Le prestataire a encaissé ${diff} de plus que ce que compte payreq. Retrouvez la commande dans le back-office du prestataire : si cet argent n’aurait pas dû être pris, remboursez-le là-bas. La prochaine vérification retire cette ligne dès que les comptes concordent.`,
  providerHasLess: (diff: string) =>
    `payreq compte ${diff} de plus que ce que détient le prestataire : remboursé ou annulé hors de payreq, ou jamais encaissé. Vérifiez la commande dans le back-office du prestataire avant tout autre remboursement, et dites au client ce qui s’est réellement passé.`,
  holdOpen: (status: string) =>
    `Une empreinte est encore ouverte chez le prestataire alors que la demande est « ${status} » : annulez-la dans le back-office du prestataire pour libérer la carte du client.`,
  undecided: (hours: number) =>
    `Indécise depuis plus de ${hours} heures : consultez la commande dans le back-office du prestataire, puis indiquez ici ce qu’il montre.`,
  providerShows: 'Chez le prestataire',
  settleAs: 'Ce que montre le prestataire',
  settleDone: 'Elle a eu lieu',
  settleRefused: 'Rien n’a bougé (refusée)',
  settleReason: 'Ce que vous avez vu (gardé dans le journal)',
  settleTransaction: 'La transaction du prestataire, si aucune n’est indiquée',
  settle: 'Enregistrer',
  settled: 'Enregistré. La demande suit ce que vous avez indiqué.',
  holdMissing: (status: string) =>
    `La demande est « ${status} », mais son empreinte n’est pas ouverte chez le prestataire (refusée, expirée ou levée) : le séjour n’est pas garanti. Consultez la commande dans le back-office du prestataire et demandez une autre carte au client si elle n’y est plus.`,
  holdDiffers:
    'L’empreinte de la demande est ouverte chez le prestataire pour un autre montant que celui de la demande : consultez la commande dans le back-office du prestataire avant d’encaisser.',
  secondHold:
    'Une seconde empreinte est ouverte chez le prestataire à côté de celle de la demande : payreq l’annule à son prochain rapprochement ; si elle reste, annulez-la dans le back-office du prestataire.',
  captureDiffers:
    'Le prestataire montre l’argent sur une autre transaction que celle de la demande : consultez la commande dans le back-office du prestataire.',
  holdLapsed:
    'Le prestataire a laissé expirer l’empreinte de la demande avant que le séjour soit tranché : plus rien ne peut être encaissé dessus. Demandez une autre carte au client si le séjour doit encore être garanti.',
  disputed:
    'Le porteur a contesté ce paiement auprès de sa banque : répondez à la contestation dans le tableau de bord du prestataire avant son échéance, avec les preuves de la réservation.',
  waitReconcile:
    'Le prestataire n’a pas répondu à temps : personne ne sait encore si l’argent a bougé. Ne refaites pas l’opération. La réconciliation la règle d’après le prestataire en quelques minutes ; si elle reste ici plus d’une heure, vérifiez que le compte du prestataire fonctionne.',
  giveBack:
    'De l’argent est arrivé là où il n’aurait pas dû (voir la demande). payreq le rend automatiquement ; s’il reste ici, rendez-le depuis le back-office du prestataire.',
  handContradicted:
    'Le prestataire a répondu tardivement, après que cette opération a été tranchée à la main, et dit qu’elle s’est passée autrement (voir le journal, « ledger.late_answer ») : consultez la commande dans le back-office du prestataire et corrigez l’écart là-bas.',
  confirmTitle: 'L’enregistrer quand même ?',
  confirmWhy: {
    young: (hours: number) =>
      `Cette opération a moins de ${hours} heures : le rapprochement peut encore la trancher d’après le prestataire.`,
    contradicts: () => 'Ce que vous enregistrez contredit ce que montre le prestataire maintenant.',
    unchecked: () =>
      'La vue du prestataire n’a pas pu être lue : la transaction indiquée n’a donc pas pu être vérifiée.',
  } as Record<'young' | 'contradicts' | 'unchecked', (hours: number) => string>,
  confirmShows: 'Le prestataire montre',
  confirm: 'L’enregistrer quand même',
  cancel: 'Retour à la page Comptes',
};

const de: BooksMessages = {
  title: 'Buchhaltung',
  intro:
    'Wo die Buchungen von payreq und die des Zahlungsanbieters voneinander abweichen oder noch nicht bekannt sind. Eine Prüfung vergleicht je Bestellung den Saldo des Anbieters (abgebucht abzüglich erstattet) mit dem von payreq (erfasst abzüglich erstattet) und sucht offen gebliebene Reservierungen.',
  lastCheck: 'Letzte Prüfungen',
  noCheck:
    'Noch keine Prüfung der Buchungen ist abgeschlossen. Sie läuft täglich (geplante Aufgabe „Buchhaltungsprüfung“) oder wenn der Betreiber sie startet.',
  checkSummary: (since: string, orders: number, agree: number, disagree: number, inDoubt: number) =>
    `Seit ${since} bewegte Bestellungen: ${orders} geprüft, ${agree} stimmen überein, ${disagree} weichen ab, ${inDoubt} ungewiss.`,
  everyTenant: 'alle Hotels',
  incidents: 'Offene Abweichungen',
  noIncidents: 'Keine Abweichung: Jede geprüfte Bestellung stimmt mit den Buchungen des Anbieters überein.',
  inDoubt: 'Ungewisse Vorgänge',
  noInDoubt: 'Kein ungewisser Vorgang.',
  misplaced: 'Zurückzugebendes Geld',
  noMisplaced: 'Kein Betrag wartet auf Rückgabe.',
  providerNet: 'Saldo Anbieter',
  payreqNet: 'Saldo payreq',
  openHolds: 'Offene Reservierungen',
  since: 'Seit',
  lastSeen: 'Zuletzt gesehen',
  reason: 'Grund',
  deleted: 'gelöscht',
  resolved: 'Gelöst am',
  agreesAgain: 'Die Buchungen stimmen wieder überein.',
  providerTookMore: (diff: string) =>
    `Der Anbieter hat ${diff} mehr abgebucht, als payreq zählt. Suchen Sie die Bestellung im Backoffice des Anbieters: Wenn dieses Geld nicht hätte abgebucht werden dürfen, erstatten Sie es dort. Die nächste Prüfung schließt diese Zeile, sobald die Buchungen übereinstimmen.`,
  providerHasLess: (diff: string) =>
    `payreq zählt ${diff} mehr, als der Anbieter hält: außerhalb von payreq erstattet oder storniert, oder nie abgebucht. Prüfen Sie die Bestellung im Backoffice des Anbieters vor jeder weiteren Erstattung und sagen Sie dem Gast, was wirklich geschah.`,
  holdOpen: (status: string) =>
    `Beim Anbieter ist noch eine Reservierung offen, obwohl die Anfrage „${status}“ ist: Stornieren Sie sie im Backoffice des Anbieters, damit die Karte des Gastes frei wird.`,
  undecided: (hours: number) =>
    `Seit mehr als ${hours} Stunden offen: Sehen Sie die Bestellung im Backoffice des Zahlungsanbieters nach und tragen Sie hier ein, was es zeigt.`,
  providerShows: 'Beim Anbieter',
  settleAs: 'Was der Anbieter zeigt',
  settleDone: 'Sie hat stattgefunden',
  settleRefused: 'Nichts bewegt (abgelehnt)',
  settleReason: 'Was Sie gesehen haben (im Protokoll gespeichert)',
  settleTransaction: 'Die Transaktion des Anbieters, falls keine angegeben ist',
  settle: 'Eintragen',
  settled: 'Eingetragen. Die Anfrage folgt Ihrer Angabe.',
  holdMissing: (status: string) =>
    `Die Anfrage ist „${status}“, aber ihre Vorautorisierung ist beim Anbieter nicht offen (abgelehnt, abgelaufen oder freigegeben): Der Aufenthalt ist nicht garantiert. Sehen Sie die Bestellung im Backoffice des Anbieters nach und bitten Sie den Gast gegebenenfalls um eine andere Karte.`,
  holdDiffers:
    'Die Vorautorisierung der Anfrage ist beim Anbieter über einen anderen Betrag offen als die Anfrage: Sehen Sie die Bestellung im Backoffice des Anbieters nach, bevor Sie abbuchen.',
  secondHold:
    'Neben der Vorautorisierung der Anfrage ist beim Anbieter eine zweite offen: payreq storniert sie beim nächsten Abgleich; bleibt sie, stornieren Sie sie im Backoffice des Anbieters.',
  captureDiffers:
    'Der Anbieter zeigt das Geld auf einer anderen Transaktion als der der Anfrage: Sehen Sie die Bestellung im Backoffice des Anbieters nach.',
  holdLapsed:
    'Der Anbieter hat die Vorautorisierung der Anfrage verfallen lassen, bevor über den Aufenthalt entschieden war: Darauf kann nichts mehr abgebucht werden. Bitten Sie den Gast um eine andere Karte, falls der Aufenthalt noch garantiert werden muss.',
  disputed:
    'Der Karteninhaber hat diese Zahlung bei seiner Bank angefochten: Beantworten Sie die Anfechtung vor ihrer Frist im Dashboard des Anbieters, mit den Nachweisen der Buchung.',
  waitReconcile:
    'Der Anbieter hat nicht rechtzeitig geantwortet: Noch weiß niemand, ob Geld bewegt wurde. Wiederholen Sie den Vorgang nicht. Der Abgleich klärt ihn binnen Minuten anhand der Sicht des Anbieters; bleibt er länger als eine Stunde hier, prüfen Sie das Anbieterkonto.',
  giveBack:
    'Geld ist angekommen, wo es nicht hingehört (siehe Anfrage). payreq gibt es automatisch zurück; bleibt es hier, geben Sie es im Backoffice des Anbieters zurück.',
  handContradicted:
    'Der Anbieter hat verspätet geantwortet, nachdem dieser Vorgang von Hand entschieden wurde, und sagt, er sei anders verlaufen (siehe Protokoll, „ledger.late_answer“): Sehen Sie den Auftrag im Backoffice des Anbieters nach und gleichen Sie die Abweichung dort aus.',
  confirmTitle: 'Trotzdem erfassen?',
  confirmWhy: {
    young: (hours: number) =>
      `Dieser Vorgang ist jünger als ${hours} Stunden: Der Abgleich kann ihn noch anhand der Sicht des Anbieters entscheiden.`,
    contradicts: () => 'Was Sie erfassen, widerspricht dem, was der Anbieter jetzt zeigt.',
    unchecked: () =>
      'Die Sicht des Anbieters konnte nicht gelesen werden, daher konnte die angegebene Transaktion nicht geprüft werden.',
  } as Record<'young' | 'contradicts' | 'unchecked', (hours: number) => string>,
  confirmShows: 'Der Anbieter zeigt',
  confirm: 'Trotzdem erfassen',
  cancel: 'Zurück zur Seite Buchhaltung',
};

export const BOOKS_MESSAGES: Record<ControlLanguage, BooksMessages> = { en, fr, de };
