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
};

const de: ExportMessages = {
  totalsHeading: 'Summen für diesen Filter',
  totalsCount: (n) => `${n} Anfragen`,
  totalsRequested: 'Angefordert',
  totalsCaptured: 'Belastet',
  totalsRefunded: 'Erstattet',
  totalsCurrency: 'Währung',
  totalsTooMany: (cap) => `Mehr als ${cap} Anfragen: grenzen Sie die Daten ein, um die Summen zu sehen.`,
  exportHeading: 'Exportieren',
  exportRequests: 'Anfragen (CSV)',
  exportLedger: 'Kontobewegungen (CSV)',
  exportHint:
    'Eine Zeile pro Anfrage oder pro Kontobewegung im Zeitraum des Filters. Beträge als Dezimalzahlen mit ihrer Währung, Zeiten in der Zeitzone des Hotels.',
  exportChooseHotel: 'Wählen Sie im Filter ein Hotel, um seine Anfragen zu exportieren.',
};

export const EXPORT_MESSAGES: Record<ControlLanguage, ExportMessages> = { en, fr, de };
