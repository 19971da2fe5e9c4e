/**
 * The words of the bulk pages (/control/bulk: the confirmation of an action on the selected
 * requests and the progress of its jobs), in English, French and German. A string missing in
 * one language is a type error.
 */

import { plural } from '../../i18n/index.ts';
import type { ControlLanguage } from '../shell/index.ts';

const en = {
  bulkConfirmTitle: 'Confirm the actions on the selected requests',
  bulkConfirmIntro: (count: number) =>
    `${plural('en', count, { one: '# request', other: '# requests' })} will be acted on, each for the amount shown. Nothing moves until you confirm.`,
  bulkLeftOut: (status: string) => `Left out: not possible in status ${status}`,
  bulkNoneEligible: 'None of the selected requests allows this action: nothing to confirm.',
  bulkTotal: 'Total',
  bulkTotalDone: 'Moved so far',
  bulkReleaseNothing: 'nothing charged',
  bulkReasons: {
    invalid_status: 'Not possible in its status now',
    capture_amount_too_high: 'More than is held now',
    refund_amount_invalid: 'More than is left to refund now',
    operation_in_progress: 'Another operation was under way on it',
    provider_refused: 'The payment provider refused',
    provider_unavailable: 'The payment provider could not be reached; nothing was changed',
    outcome_unknown: 'The payment provider did not answer in time; it will be settled automatically',
    not_found: 'Not found, or no longer yours',
  } as Record<string, string>,
  bulkConfirmButton: {
    capture: 'Capture these amounts',
    release: 'Release these holds',
    refund: 'Refund these amounts',
  },
};

type T = typeof en;

const fr: T = {
  bulkConfirmTitle: 'Confirmer les actions sur les demandes sélectionnées',
  bulkConfirmIntro: (count) =>
    `${plural('fr', count, { one: '# demande sera traitée', other: '# demandes seront traitées' })}, chacune pour le montant indiqué. Rien ne bouge avant votre confirmation.`,
  bulkLeftOut: (status) => `Écartée : impossible au statut ${status}`,
  bulkNoneEligible: 'Aucune des demandes sélectionnées ne permet cette action : rien à confirmer.',
  bulkTotal: 'Total',
  bulkTotalDone: 'Déjà effectué',
  bulkReleaseNothing: 'aucun débit',
  bulkReasons: {
    invalid_status: 'Impossible dans son statut actuel',
    capture_amount_too_high: 'Plus que le montant bloqué actuel',
    refund_amount_invalid: 'Plus que le restant à rembourser',
    operation_in_progress: 'Une autre opération était en cours',
    provider_refused: 'Le prestataire de paiement a refusé',
    provider_unavailable: 'Prestataire de paiement injoignable ; rien n’a changé',
    outcome_unknown: 'Le prestataire n’a pas répondu à temps ; ce sera réglé automatiquement',
    not_found: 'Introuvable, ou plus de votre ressort',
  },
  bulkConfirmButton: {
    capture: 'Encaisser ces montants',
    release: 'Libérer ces empreintes',
    refund: 'Rembourser ces montants',
  },
};

const de: T = {
  bulkConfirmTitle: 'Aktionen für die ausgewählten Anfragen bestätigen',
  bulkConfirmIntro: (count) =>
    `${plural('de', count, { one: '# Anfrage wird', other: '# Anfragen werden' })} bearbeitet, jeweils mit dem angezeigten Betrag. Nichts geschieht vor Ihrer Bestätigung.`,
  bulkLeftOut: (status) => `Ausgelassen: im Status ${status} nicht möglich`,
  bulkNoneEligible: 'Keine der ausgewählten Anfragen erlaubt diese Aktion: nichts zu bestätigen.',
  bulkTotal: 'Summe',
  bulkTotalDone: 'Bisher ausgeführt',
  bulkReleaseNothing: 'keine Abbuchung',
  bulkReasons: {
    invalid_status: 'Im aktuellen Status nicht möglich',
    capture_amount_too_high: 'Mehr als derzeit vorautorisiert',
    refund_amount_invalid: 'Mehr als noch erstattet werden kann',
    operation_in_progress: 'Ein anderer Vorgang lief gerade',
    provider_refused: 'Der Zahlungsanbieter hat abgelehnt',
    provider_unavailable: 'Zahlungsanbieter nicht erreichbar; nichts wurde geändert',
    outcome_unknown: 'Der Zahlungsanbieter antwortete nicht rechtzeitig; wird automatisch geklärt',
    not_found: 'Nicht gefunden oder nicht mehr zugänglich',
  },
  bulkConfirmButton: {
    capture: 'Diese Beträge abbuchen',
    release: 'Diese Vorautorisierungen freigeben',
    refund: 'Diese Beträge erstatten',
  },
};

export const BULK_MESSAGES: Record<ControlLanguage, T> = { en, fr, de };
