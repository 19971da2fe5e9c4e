import type { MoneyReason } from '../../domain/index.ts';
import type { ControlLanguage } from '../shell/index.ts';

/**
 * The words of a capture's or refund's reason (domain/money-reasons.ts): the list as a front
 * desk reads it, in the forms, the confirmation, the history and the audit.
 */
const en = {
  reasons: {
    no_show: 'No-show',
    late_cancellation: 'Late cancellation',
    early_departure: 'Early departure',
    damage: 'Damage',
    extras: 'Minibar and extras',
    goodwill: 'Goodwill gesture',
    duplicate: 'Duplicate payment',
    guest_request: 'Guest’s request',
    billing_error: 'Billing error',
    other: 'Other',
  } as Record<MoneyReason, string>,
  reason: 'Reason',
  noReason: 'None given',
  note: 'Note (optional)',
  noteHint: 'What was damaged, what “Other” is: kept with the move.',
  because: (reason: string) => `Reason: ${reason}`,
  reasonRefused: 'Choose a reason from the list.',
  auditReason: 'Reason given',
  auditNote: 'Note',
};

export type ReasonMessages = typeof en;

const fr: ReasonMessages = {
  reasons: {
    no_show: 'Non-présentation',
    late_cancellation: 'Annulation tardive',
    early_departure: 'Départ anticipé',
    damage: 'Dégradations',
    extras: 'Minibar et extras',
    goodwill: 'Geste commercial',
    duplicate: 'Paiement en double',
    guest_request: 'Demande du client',
    billing_error: 'Erreur de facturation',
    other: 'Autre',
  },
  reason: 'Motif',
  noReason: 'Non précisé',
  note: 'Note (facultative)',
  noteHint: 'Ce qui a été dégradé, ce qu’est « Autre » : gardé avec l’opération.',
  because: (reason) => `Motif : ${reason}`,
  reasonRefused: 'Choisissez un motif dans la liste.',
  auditReason: 'Motif indiqué',
  auditNote: 'Note',
};

const de: ReasonMessages = {
  reasons: {
    no_show: 'Nichterscheinen (No-Show)',
    late_cancellation: 'Späte Stornierung',
    early_departure: 'Vorzeitige Abreise',
    damage: 'Schaden',
    extras: 'Minibar und Extras',
    goodwill: 'Kulanz',
    duplicate: 'Doppelte Zahlung',
    guest_request: 'Wunsch des Gastes',
    billing_error: 'Abrechnungsfehler',
    other: 'Sonstiges',
  },
  reason: 'Grund',
  noReason: 'Nicht angegeben',
  note: 'Notiz (optional)',
  noteHint: 'Was beschädigt wurde, was „Sonstiges“ ist: bleibt bei der Buchung.',
  because: (reason) => `Grund: ${reason}`,
  reasonRefused: 'Wählen Sie einen Grund aus der Liste.',
  auditReason: 'Angegebener Grund',
  auditNote: 'Notiz',
};

export const REASON_MESSAGES: Record<ControlLanguage, ReasonMessages> = { en, fr, de };
