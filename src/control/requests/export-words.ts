import type { ControlLanguage } from '../shell/index.ts';

const en = {
  totalsHeading: 'Totals for this filter',
  totalsCount: (n: string) => `${n} requests`,
  totalsRequested: 'Requested',
  totalsCaptured: 'Captured',
  totalsRefunded: 'Refunded',
  totalsCurrency: 'Currency',
  totalsTooMany: (cap: string) => `More than ${cap} requests: narrow the dates to see the totals.`,
  exportHeading: 'Export',
  exportRequests: 'Requests (CSV)',
  exportLedger: 'Ledger movements (CSV)',
  exportHint:
    'One row per request, or per ledger movement made in the dates of the filter. Amounts as decimals with their currency, times in the hotel’s time zone.',
  exportChooseHotel: 'Choose a hotel in the filter to export its requests.',
  dialectLabel: 'Spreadsheet',
  dialectHint:
    'French and German spreadsheets read “;” between columns and a decimal comma; the default follows the hotel’s language. In the ledger, refunds are negative, holds are in a column of their own and “net” is the money each movement moved.',
  dialects: {
    'excel-fr': 'Excel, French (; and 12,50)',
    'excel-de': 'Excel, German (; and 12,50)',
    rfc4180: 'Other, RFC 4180 (, and 12.50)',
  },
};

export type ExportMessages = typeof en;

const fr: ExportMessages = {
  totalsHeading: 'Totaux pour ce filtre',
  totalsCount: (n) => `${n} demandes`,
  totalsRequested: 'Demandé',
  totalsCaptured: 'Débité',
  totalsRefunded: 'Remboursé',
  totalsCurrency: 'Devise',
  totalsTooMany: (cap) => `Plus de ${cap} demandes : resserrez les dates pour voir les totaux.`,
  exportHeading: 'Exporter',
  exportRequests: 'Demandes (CSV)',
  exportLedger: 'Mouvements du registre (CSV)',
  exportHint:
    'Une ligne par demande, ou par mouvement du registre effectué aux dates du filtre. Montants en décimales avec leur devise, heures dans le fuseau horaire de l’établissement.',
  exportChooseHotel: 'Choisissez un établissement dans le filtre pour exporter ses demandes.',
  dialectLabel: 'Tableur',
  dialectHint:
    'Les tableurs français et allemands lisent « ; » entre les colonnes et une virgule décimale ; le choix par défaut suit la langue de l’établissement. Dans le registre, les remboursements sont négatifs, les garanties ont leur propre colonne et « net » est l’argent que chaque mouvement a déplacé.',
  dialects: {
    'excel-fr': 'Excel, français (; et 12,50)',
    'excel-de': 'Excel, allemand (; et 12,50)',
    rfc4180: 'Autre, RFC 4180 (, et 12.50)',
  },
};

const de: ExportMessages = {
  totalsHeading: 'Summen für diesen Filter',
  totalsCount: (n) => `${n} Anfragen`,
  totalsRequested: 'Angefordert',
  totalsCaptured: 'Belastet',
  totalsRefunded: 'Erstattet',
  totalsCurrency: 'Währung',
  totalsTooMany: (cap) => `Mehr als ${cap} Anfragen: Grenzen Sie die Daten ein, um die Summen zu sehen.`,
  exportHeading: 'Exportieren',
  exportRequests: 'Anfragen (CSV)',
  exportLedger: 'Kontobewegungen (CSV)',
  exportHint:
    'Eine Zeile pro Anfrage oder pro Kontobewegung im Zeitraum des Filters. Beträge als Dezimalzahlen mit ihrer Währung, Zeiten in der Zeitzone des Hotels.',
  exportChooseHotel: 'Wählen Sie im Filter ein Hotel, um seine Anfragen zu exportieren.',
  dialectLabel: 'Tabellenkalkulation',
  dialectHint:
    'Französische und deutsche Tabellenkalkulationen lesen „;“ zwischen den Spalten und ein Dezimalkomma; die Voreinstellung folgt der Sprache des Hotels. Im Kontobuch sind Erstattungen negativ, Garantien stehen in einer eigenen Spalte und „net“ ist das Geld, das jede Bewegung bewegt hat.',
  dialects: {
    'excel-fr': 'Excel, französisch (; und 12,50)',
    'excel-de': 'Excel, deutsch (; und 12,50)',
    rfc4180: 'Andere, RFC 4180 (, und 12.50)',
  },
};

export const EXPORT_MESSAGES: Record<ControlLanguage, ExportMessages> = { en, fr, de };
