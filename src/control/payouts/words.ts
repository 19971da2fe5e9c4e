/**
 * The words of the Payouts pages (/control/payouts), in English, French and German, read as
 * `PAYOUT_MESSAGES[ctx.language]` (the menu's entry is the shell's, `m.navPayouts`). Its audit
 * action is also the audit page's. A string missing in one language is a type error.
 */
import { plural } from '../../i18n/index.ts';
import {
  JRB_PROBLEMS_EN,
  type JrbProblem,
  type JrbProblemWords,
  sayJrbProblem,
  type UnmatchedReason,
} from '../../payouts/index.ts';
import type { ControlLanguage } from '../shell/index.ts';

const en = {
  title: 'Payouts',
  intro:
    'The transfers the payment provider made to the hotel’s bank account. Each remittance shows what it paid out (gross: payments less refunds), what the provider kept (fees) and what reached the bank (net = gross − fees); each of its lines is matched to the money payreq moved, or says why not.',
  importTitle: 'Import a bank reconciliation report',
  importHelp:
    'The provider e-mails it once a day (Lyra: the “bank reconciliation report”, a .csv file). Importing the same file again, or one that overlaps it, changes nothing.',
  fileLabel: 'Report file',
  importButton: 'Import',
  imported: (remittances: number, lines: number, matched: number, unmatched: number) =>
    `Imported: ${plural('en', remittances, { one: '# remittance', other: '# remittances' })}, ${plural('en', lines, { one: '# line', other: '# lines' })}, ${matched} matched, ${unmatched} unmatched.`,
  nothingNew: (lines: number) =>
    `Nothing new: ${plural('en', lines, { zero: 'this file holds no line', one: 'the line of this file was already imported', other: 'the # lines of this file were already imported' })}, and nothing more matches now.`,
  refused: (line: number, problem: JrbProblem) =>
    `The file is refused and nothing was stored: ${line > 0 ? `line ${line}: ` : ''}${sayJrbProblem(JRB_PROBLEMS_EN, problem)}.`,
  noFile: 'Choose the report file first.',
  tooLarge: (mb: number) =>
    `The file is larger than ${mb} MB: import it with the command line (payreq settlements import).`,
  remittances: 'Remittances',
  noRemittances: 'No remittance imported yet.',
  date: 'Date',
  remittance: 'Remittance',
  currency: 'Currency',
  gross: 'Gross',
  fees: 'Fees',
  net: 'Net',
  lines: 'Lines',
  matched: 'Matched',
  unmatched: 'Unmatched',
  open: (nb: string) => `Lines of remittance ${nb}`,
  from: 'From',
  to: 'To',
  show: 'Show',
  download: 'Download the lines (CSV)',
  feesTitle: 'Fees per month',
  month: 'Month',
  count: 'Remittances',
  notPaidOut: 'Not paid out',
  notPaidOutIntro: (days: number) =>
    `Money payreq captured or refunded more than ${days} days ago that no imported remittance holds. Import the reports that are missing; if a line stays here, ask the provider about it.`,
  noNotPaidOut: 'Nothing: every payment, capture and refund older than that is in an imported remittance.',
  notPaidOutBefore:
    'Import a first report: from the payments it pays out on, the money no remittance holds is listed here.',
  notPaidOutMore: (shown: number, total: number) => `The ${shown} oldest of ${total}.`,
  kinds: { payment: 'Guest payment', capture: 'Capture', refund: 'Refund' } as Record<string, string>,
  // One remittance
  remittanceTitle: (nb: string, date: string) => `Remittance ${nb} of ${date}`,
  back: 'All payouts',
  totals: (lines: number, matched: number) =>
    `${plural('en', lines, { one: '# line', other: '# lines' })}, ${matched} matched.`,
  direction: 'Operation',
  directions: { debit: 'Payment', credit: 'Refund' } as Record<string, string>,
  transaction: 'Transaction',
  request: 'Request',
  order: 'Order',
  paymentDate: 'Paid on',
  amount: 'Amount',
  status: 'Status',
  matchedTo: (kind: string) => `Matched: ${kind}`,
  expected: (amount: string) => `payreq: ${amount}`,
  reasons: {
    unknown_order:
      'No request of this hotel has this order: a payment taken outside payreq (in the provider’s back office, by another shop), or another hotel’s.',
    unknown_transaction: 'The request is this hotel’s, but payreq recorded no money under this transaction.',
    direction_differs: 'A payment where payreq recorded a refund, or the other way round.',
    currency_differs: 'Another currency than the one payreq moved.',
    amount_differs: 'Another amount than payreq moved.',
    already_paid_out: 'This money is in another remittance already: the provider paid it out twice.',
  } satisfies Record<UnmatchedReason, string>,
  unmatchedNeed:
    'Look the operation up in the provider’s back office. If it was made there, nothing is wrong in payreq; if it should not exist or differs, settle it there or ask the provider. Once payreq’s books agree, importing the report again matches the line.',
  auditActions: { payouts_imported: 'Bank reconciliation report imported' } as Record<string, string>,
  auditDetail: {
    remittances: 'Remittances',
    lines: 'Lines',
    matched: 'Matched',
    unmatched: 'Unmatched',
    bytes: 'Size (bytes)',
    line: 'Line',
  } as Record<string, string>,
};

export type PayoutMessages = typeof en;

/** Why a report is refused, in French: the file's own names (TITRE, BRUT_AMOUNT…) kept as Lyra writes them. */
const JRB_PROBLEMS_FR: JrbProblemWords = {
  lineTooLong: (p) => `plus longue que ${p.maxBytes} octets, ce n’est pas un enregistrement de journal`,
  controlCharacter: () => 'contient un caractère de contrôle, ce n’est pas un enregistrement de journal',
  afterEnd: (p) => `« ${p.found} » après l’enregistrement FIN`,
  notAReport: (p) =>
    `un journal de rapprochement bancaire commence par son enregistrement TITRE, pas par « ${p.found} » (un fichier .csv enregistré à nouveau par un tableur n’est plus celui du prestataire : importez le fichier reçu)`,
  unknownVersion: (p) => `la version « ${p.found} » n’est pas lue par payreq (${p.known})`,
  noHeader: (p) => `l’enregistrement TITRE est suivi de ENTETE, pas de « ${p.found} »`,
  labelTwice: (p) => `ENTETE nomme ${p.label} deux fois`,
  labelsMissing: (p) => `il manque à ENTETE ${p.labels}`,
  countDiffers: (p) => `FIN annonce « ${p.stated} » enregistrements, le fichier en contient ${p.count} MATCHING`,
  unknownRecord: (p) => `« ${p.found} » n’est pas un enregistrement du journal (des lignes MATCHING, puis FIN)`,
  emptyFile: () => 'le fichier est vide',
  cutShort: () => 'le fichier s’arrête avant son enregistrement FIN (tronqué ?)',
  fieldEmpty: (p) => `${p.label} est vide`,
  fieldTooLong: (p) => `${p.label} dépasse ${p.max} caractères`,
  notADate: (p) => `${p.label} « ${p.found} » n’est pas une date AAAAMMJJ`,
  decimalAmount: (p) =>
    `${p.label} « ${p.found} » n’est pas dans la plus petite unité de la devise : choisissez ce format de montant pour le journal dans le back-office de Lyra`,
  negativeAmount: (p) =>
    `${p.label} « ${p.found} » est négatif : les montants du journal n’ont pas de signe (OPERATION_TYPE dit débit ou crédit)`,
  notAnAmount: (p) => `${p.label} « ${p.found} » n’est pas un montant`,
  operationType: (p) => `OPERATION_TYPE « ${p.found} » n’est ni DT (débit) ni CT (crédit)`,
  currency: (p) => `CURRENCY_CODE « ${p.found} » n’est pas une devise acceptée (978 EUR, 756 CHF, 840 USD)`,
  commissionCurrency: (p) => `COMMISSION_CURRENCY « ${p.found} » n’est pas la devise de la ligne, ${p.currency}`,
  netAboveGross: (p) =>
    `NET_AMOUNT ${p.net} dépasse BRUT_AMOUNT ${p.gross} : la commission d’un paiement ne peut pas être négative`,
  amountsDoNotAddUp: (p) =>
    `BRUT_AMOUNT ${p.gross}, NET_AMOUNT ${p.net ?? '(absent)'} et COMMISSION_AMOUNT ${p.commission ?? '(absent)'} ne concordent pas (montants dans la plus petite unité de la devise ?)`,
};

/** Why a report is refused, in German: the file's own names kept as Lyra writes them. */
const JRB_PROBLEMS_DE: JrbProblemWords = {
  lineTooLong: (p) => `länger als ${p.maxBytes} Bytes, also kein Datensatz des Berichts`,
  controlCharacter: () => 'enthält ein Steuerzeichen, also kein Datensatz des Berichts',
  afterEnd: (p) => `„${p.found}“ nach dem FIN-Datensatz`,
  notAReport: (p) =>
    `ein Bankabgleichsbericht beginnt mit seinem TITRE-Datensatz, nicht mit „${p.found}“ (eine .csv-Datei, die eine Tabellenkalkulation neu gespeichert hat, ist nicht mehr die des Anbieters: importieren Sie die erhaltene Datei)`,
  unknownVersion: (p) => `Version „${p.found}“ liest payreq nicht (${p.known})`,
  noHeader: (p) => `auf den TITRE-Datensatz folgt ENTETE, nicht „${p.found}“`,
  labelTwice: (p) => `ENTETE nennt ${p.label} zweimal`,
  labelsMissing: (p) => `in ENTETE fehlt ${p.labels}`,
  countDiffers: (p) => `FIN zählt „${p.stated}“ Datensätze, die Datei enthält ${p.count} MATCHING-Datensätze`,
  unknownRecord: (p) => `„${p.found}“ ist kein Datensatz des Berichts (MATCHING-Zeilen, dann FIN)`,
  emptyFile: () => 'die Datei ist leer',
  cutShort: () => 'die Datei endet vor ihrem FIN-Datensatz (abgeschnitten?)',
  fieldEmpty: (p) => `${p.label} ist leer`,
  fieldTooLong: (p) => `${p.label} ist länger als ${p.max} Zeichen`,
  notADate: (p) => `${p.label} „${p.found}“ ist kein Datum JJJJMMTT`,
  decimalAmount: (p) =>
    `${p.label} „${p.found}“ ist nicht in der kleinsten Einheit der Währung: Wählen Sie dieses Betragsformat für den Bericht im Back-Office von Lyra`,
  negativeAmount: (p) =>
    `${p.label} „${p.found}“ ist negativ: Die Beträge des Berichts haben kein Vorzeichen (OPERATION_TYPE sagt Belastung oder Gutschrift)`,
  notAnAmount: (p) => `${p.label} „${p.found}“ ist kein Betrag`,
  operationType: (p) => `OPERATION_TYPE „${p.found}“ ist weder DT (Belastung) noch CT (Gutschrift)`,
  currency: (p) => `CURRENCY_CODE „${p.found}“ ist keine angenommene Währung (978 EUR, 756 CHF, 840 USD)`,
  commissionCurrency: (p) => `COMMISSION_CURRENCY „${p.found}“ ist nicht die Währung der Zeile, ${p.currency}`,
  netAboveGross: (p) =>
    `NET_AMOUNT ${p.net} liegt über BRUT_AMOUNT ${p.gross}: Die Gebühr einer Zahlung kann nicht negativ sein`,
  amountsDoNotAddUp: (p) =>
    `BRUT_AMOUNT ${p.gross}, NET_AMOUNT ${p.net ?? '(keiner)'} und COMMISSION_AMOUNT ${p.commission ?? '(keiner)'} gehen nicht auf (Beträge in der kleinsten Einheit der Währung?)`,
};

const fr: PayoutMessages = {
  title: 'Versements',
  intro:
    'Les virements du prestataire de paiement sur le compte bancaire de l’hôtel. Chaque remise montre ce qu’elle a versé (brut : paiements moins remboursements), ce que le prestataire a gardé (commissions) et ce qui est arrivé en banque (net = brut − commissions) ; chacune de ses lignes est rapprochée de l’argent que payreq a fait circuler, ou dit pourquoi elle ne l’est pas.',
  importTitle: 'Importer un journal de rapprochement bancaire',
  importHelp:
    'Le prestataire l’envoie par e-mail une fois par jour (Lyra : le « journal de rapprochement bancaire », un fichier .csv). Importer à nouveau le même fichier, ou un fichier qui le recoupe, ne change rien.',
  fileLabel: 'Fichier du journal',
  importButton: 'Importer',
  imported: (remittances, lines, matched, unmatched) =>
    `Importé : ${plural('fr', remittances, { one: '# remise', other: '# remises' })}, ${plural('fr', lines, { one: '# ligne', other: '# lignes' })}, ${plural('fr', matched, { one: '# rapprochée', other: '# rapprochées' })}, ${plural('fr', unmatched, { one: '# non rapprochée', other: '# non rapprochées' })}.`,
  nothingNew: (lines) =>
    `Rien de nouveau : ${plural('fr', lines, { zero: 'ce fichier ne contient aucune ligne', one: 'la ligne de ce fichier était déjà importée', other: 'les # lignes de ce fichier étaient déjà importées' })}, et rien de plus ne se rapproche maintenant.`,
  refused: (line, problem) =>
    `Le fichier est refusé et rien n’a été enregistré : ${line > 0 ? `ligne ${line} : ` : ''}${sayJrbProblem(JRB_PROBLEMS_FR, problem)}.`,
  noFile: 'Choisissez d’abord le fichier du journal.',
  tooLarge: (mb) => `Le fichier dépasse ${mb} Mo : importez-le en ligne de commande (payreq settlements import).`,
  remittances: 'Remises',
  noRemittances: 'Aucune remise importée pour l’instant.',
  date: 'Date',
  remittance: 'Remise',
  currency: 'Devise',
  gross: 'Brut',
  fees: 'Commissions',
  net: 'Net',
  lines: 'Lignes',
  matched: 'Rapprochées',
  unmatched: 'Non rapprochées',
  open: (nb) => `Lignes de la remise ${nb}`,
  from: 'Du',
  to: 'Au',
  show: 'Afficher',
  download: 'Télécharger les lignes (CSV)',
  feesTitle: 'Commissions par mois',
  month: 'Mois',
  count: 'Remises',
  notPaidOut: 'Non versé',
  notPaidOutIntro: (days) =>
    `L’argent que payreq a encaissé ou remboursé il y a plus de ${days} jours et qu’aucune remise importée ne contient. Importez les journaux manquants ; si une ligne reste ici, interrogez le prestataire.`,
  noNotPaidOut: 'Rien : chaque paiement, capture et remboursement plus ancien figure dans une remise importée.',
  notPaidOutBefore:
    'Importez un premier journal : à partir des paiements qu’il verse, l’argent qu’aucune remise ne contient est listé ici.',
  notPaidOutMore: (shown, total) => `Les ${shown} plus anciens sur ${total}.`,
  kinds: { payment: 'Paiement du client', capture: 'Capture', refund: 'Remboursement' },
  remittanceTitle: (nb, date) => `Remise ${nb} du ${date}`,
  back: 'Tous les versements',
  totals: (lines, matched) =>
    `${plural('fr', lines, { one: '# ligne', other: '# lignes' })}, ${plural('fr', matched, { one: '# rapprochée', other: '# rapprochées' })}.`,
  direction: 'Opération',
  directions: { debit: 'Paiement', credit: 'Remboursement' },
  transaction: 'Transaction',
  request: 'Demande',
  order: 'Commande',
  paymentDate: 'Payé le',
  amount: 'Montant',
  status: 'État',
  matchedTo: (kind) => `Rapprochée : ${kind}`,
  expected: (amount) => `payreq : ${amount}`,
  reasons: {
    unknown_order:
      'Aucune demande de cet hôtel ne porte cette commande : un paiement pris hors de payreq (dans le back-office du prestataire, par une autre boutique), ou celui d’un autre hôtel.',
    unknown_transaction:
      'La demande est bien de cet hôtel, mais payreq n’a enregistré aucun mouvement sous cette transaction.',
    direction_differs: 'Un paiement là où payreq a enregistré un remboursement, ou l’inverse.',
    currency_differs: 'Une autre devise que celle que payreq a fait circuler.',
    amount_differs: 'Un autre montant que celui que payreq a fait circuler.',
    already_paid_out: 'Cet argent figure déjà dans une autre remise : le prestataire l’a versé deux fois.',
  },
  unmatchedNeed:
    'Cherchez l’opération dans le back-office du prestataire. Si elle y a été faite, rien n’est faux dans payreq ; si elle ne devrait pas exister ou diffère, réglez-la là-bas ou interrogez le prestataire. Une fois les comptes de payreq d’accord, importer à nouveau le journal rapproche la ligne.',
  auditActions: { payouts_imported: 'Journal de rapprochement bancaire importé' },
  auditDetail: {
    remittances: 'Remises',
    lines: 'Lignes',
    matched: 'Rapprochées',
    unmatched: 'Non rapprochées',
    bytes: 'Taille (octets)',
    line: 'Ligne',
  },
};

const de: PayoutMessages = {
  title: 'Auszahlungen',
  intro:
    'Die Überweisungen des Zahlungsanbieters auf das Bankkonto des Hotels. Jede Auszahlung zeigt, was sie ausgezahlt hat (brutto: Zahlungen abzüglich Erstattungen), was der Anbieter einbehielt (Gebühren) und was auf dem Konto ankam (netto = brutto − Gebühren); jede ihrer Zeilen ist dem Geld zugeordnet, das payreq bewegt hat, oder sagt, warum nicht.',
  importTitle: 'Einen Bankabgleichsbericht importieren',
  importHelp:
    'Der Anbieter schickt ihn einmal täglich per E-Mail (Lyra: der „Bankabgleichsbericht“, eine .csv-Datei). Dieselbe Datei erneut zu importieren, oder eine, die sich mit ihr überschneidet, ändert nichts.',
  fileLabel: 'Berichtsdatei',
  importButton: 'Importieren',
  imported: (remittances, lines, matched, unmatched) =>
    `Importiert: ${plural('de', remittances, { one: '# Auszahlung', other: '# Auszahlungen' })}, ${plural('de', lines, { one: '# Zeile', other: '# Zeilen' })}, ${matched} zugeordnet, ${unmatched} nicht zugeordnet.`,
  nothingNew: (lines) =>
    `Nichts Neues: ${plural('de', lines, { zero: 'Diese Datei enthält keine Zeile', one: 'Die Zeile dieser Datei war schon importiert', other: 'Die # Zeilen dieser Datei waren schon importiert' })}, und jetzt wird nichts weiter zugeordnet.`,
  refused: (line, problem) =>
    `Die Datei wurde abgelehnt, nichts wurde gespeichert: ${line > 0 ? `Zeile ${line}: ` : ''}${sayJrbProblem(JRB_PROBLEMS_DE, problem)}.`,
  noFile: 'Wählen Sie zuerst die Berichtsdatei.',
  tooLarge: (mb) =>
    `Die Datei ist größer als ${mb} MB: Importieren Sie sie über die Kommandozeile (payreq settlements import).`,
  remittances: 'Auszahlungen',
  noRemittances: 'Noch keine Auszahlung importiert.',
  date: 'Datum',
  remittance: 'Auszahlung',
  currency: 'Währung',
  gross: 'Brutto',
  fees: 'Gebühren',
  net: 'Netto',
  lines: 'Zeilen',
  matched: 'Zugeordnet',
  unmatched: 'Nicht zugeordnet',
  open: (nb) => `Zeilen der Auszahlung ${nb}`,
  from: 'Von',
  to: 'Bis',
  show: 'Anzeigen',
  download: 'Die Zeilen herunterladen (CSV)',
  feesTitle: 'Gebühren pro Monat',
  month: 'Monat',
  count: 'Auszahlungen',
  notPaidOut: 'Nicht ausgezahlt',
  notPaidOutIntro: (days) =>
    `Geld, das payreq vor mehr als ${days} Tagen abgebucht oder erstattet hat und das keine importierte Auszahlung enthält. Importieren Sie die fehlenden Berichte; bleibt eine Zeile hier, fragen Sie den Anbieter.`,
  noNotPaidOut: 'Nichts: Jede ältere Zahlung, Abbuchung und Erstattung ist in einer importierten Auszahlung.',
  notPaidOutBefore:
    'Importieren Sie einen ersten Bericht: Ab den Zahlungen, die er auszahlt, steht hier das Geld, das keine Auszahlung enthält.',
  notPaidOutMore: (shown, total) => `Die ${shown} ältesten von ${total}.`,
  kinds: { payment: 'Zahlung des Gastes', capture: 'Abbuchung', refund: 'Erstattung' },
  remittanceTitle: (nb, date) => `Auszahlung ${nb} vom ${date}`,
  back: 'Alle Auszahlungen',
  totals: (lines, matched) => `${plural('de', lines, { one: '# Zeile', other: '# Zeilen' })}, ${matched} zugeordnet.`,
  direction: 'Vorgang',
  directions: { debit: 'Zahlung', credit: 'Erstattung' },
  transaction: 'Transaktion',
  request: 'Anfrage',
  order: 'Bestellung',
  paymentDate: 'Bezahlt am',
  amount: 'Betrag',
  status: 'Stand',
  matchedTo: (kind) => `Zugeordnet: ${kind}`,
  expected: (amount) => `payreq: ${amount}`,
  reasons: {
    unknown_order:
      'Keine Anfrage dieses Hotels hat diese Bestellung: eine Zahlung außerhalb von payreq (im Backoffice des Anbieters, über einen anderen Shop) oder die eines anderen Hotels.',
    unknown_transaction:
      'Die Anfrage gehört diesem Hotel, aber payreq hat unter dieser Transaktion kein Geld verbucht.',
    direction_differs: 'Eine Zahlung, wo payreq eine Erstattung verbucht hat, oder umgekehrt.',
    currency_differs: 'Eine andere Währung als die, in der payreq Geld bewegt hat.',
    amount_differs: 'Ein anderer Betrag als der, den payreq bewegt hat.',
    already_paid_out: 'Dieses Geld ist bereits in einer anderen Auszahlung: Der Anbieter hat es zweimal ausgezahlt.',
  },
  unmatchedNeed:
    'Suchen Sie den Vorgang im Backoffice des Anbieters. Wurde er dort ausgeführt, ist in payreq nichts falsch; sollte er nicht existieren oder abweichen, klären Sie ihn dort oder fragen Sie den Anbieter. Sobald die Buchungen von payreq übereinstimmen, ordnet ein erneuter Import des Berichts die Zeile zu.',
  auditActions: { payouts_imported: 'Bankabgleichsbericht importiert' },
  auditDetail: {
    remittances: 'Auszahlungen',
    lines: 'Zeilen',
    matched: 'Zugeordnet',
    unmatched: 'Nicht zugeordnet',
    bytes: 'Größe (Bytes)',
    line: 'Zeile',
  },
};

export const PAYOUT_MESSAGES: Record<ControlLanguage, PayoutMessages> = { en, fr, de };
