/**
 * The words of the new request form (/control/requests/new) and of its per-field issues, in
 * English, French and German. A string missing in one language is a type error.
 */
import type { ControlLanguage } from '../shell/index.ts';

const en = {
  chooseTenant: 'Choose the hotel',
  fieldIssues: {
    required: 'Required',
    too_long: 'Too long',
    too_short: 'Too short',
    wrong_type: 'Not a valid value',
    not_allowed: 'Not one of the choices',
    format_email: 'Not an e-mail address',
    unstorable_text: 'Holds characters that cannot be stored',
    plain_text: 'Holds invisible control characters',
    amount_negative: 'Must not be negative',
    amount_too_large: 'At most 1,000,000',
    amount_decimals: 'At most two decimals (12.50)',
    amount_unreadable: 'Not an amount: write it like 12.50',
    date_format: 'Not a date',
    checkout_before_checkin: 'Must not be before the check-in',
    deposit_amount_required: 'A deposit needs an amount above 0',
    provider_not_configured: 'This hotel has no payment provider account yet: nothing could be paid',
  } as Record<string, string>,
  newRequestIntro:
    'For a booking taken by phone or a link sent by text message: the same request as the PMS creates, with the same checks.',
  firstName: 'First name',
  lastName: 'Last name',
  checkout: 'Check-out',
  roomType: 'Room type',
  createRequest: 'Create the request',
  fixFields: 'Some fields need fixing; nothing was created.',
  createdFlash: (ref: string) => `${ref} created. Its payment link is below: copy it, or let the e-mail go.`,
  noHoldWarningShort: 'Without a check-in date, an imprint is never held: nothing could be captured on a no-show.',
  currency: 'Currency',
};

type T = typeof en;

const fr: T = {
  chooseTenant: 'Choisissez l’hôtel',
  fieldIssues: {
    required: 'Obligatoire',
    too_long: 'Trop long',
    too_short: 'Trop court',
    wrong_type: 'Valeur non valable',
    not_allowed: 'Pas l’un des choix proposés',
    format_email: 'Adresse e-mail non valable',
    unstorable_text: 'Contient des caractères impossibles à enregistrer',
    plain_text: 'Contient des caractères de contrôle invisibles',
    amount_negative: 'Ne peut pas être négatif',
    amount_too_large: '1 000 000 au plus',
    amount_decimals: 'Deux décimales au plus (12,50)',
    amount_unreadable: 'Montant illisible : écrivez-le comme 12,50',
    date_format: 'Date non valable',
    checkout_before_checkin: 'Ne peut pas précéder l’arrivée',
    deposit_amount_required: 'Un acompte demande un montant supérieur à 0',
    provider_not_configured:
      'Cet hôtel n’a pas encore de compte chez le prestataire de paiement : rien ne pourrait être payé',
  },
  newRequestIntro:
    'Pour une réservation prise par téléphone ou un lien envoyé par SMS : la même demande que celle du PMS, avec les mêmes contrôles.',
  firstName: 'Prénom',
  lastName: 'Nom',
  checkout: 'Départ',
  roomType: 'Type de chambre',
  createRequest: 'Créer la demande',
  fixFields: 'Certains champs sont à corriger ; rien n’a été créé.',
  createdFlash: (ref) => `${ref} créée. Son lien de paiement est ci-dessous : copiez-le, ou laissez partir l’e-mail.`,
  noHoldWarningShort:
    'Sans date d’arrivée, aucune empreinte n’est posée : rien ne pourrait être encaissé en cas de non-présentation.',
  currency: 'Devise',
};

const de: T = {
  chooseTenant: 'Wählen Sie das Hotel',
  fieldIssues: {
    required: 'Pflichtfeld',
    too_long: 'Zu lang',
    too_short: 'Zu kurz',
    wrong_type: 'Ungültiger Wert',
    not_allowed: 'Keine der Auswahlmöglichkeiten',
    format_email: 'Keine gültige E-Mail-Adresse',
    unstorable_text: 'Enthält Zeichen, die nicht gespeichert werden können',
    plain_text: 'Enthält unsichtbare Steuerzeichen',
    amount_negative: 'Darf nicht negativ sein',
    amount_too_large: 'Höchstens 1.000.000',
    amount_decimals: 'Höchstens zwei Nachkommastellen (12,50)',
    amount_unreadable: 'Kein Betrag: Schreiben Sie ihn wie 12,50',
    date_format: 'Kein gültiges Datum',
    checkout_before_checkin: 'Darf nicht vor der Anreise liegen',
    deposit_amount_required: 'Eine Anzahlung braucht einen Betrag über 0',
    provider_not_configured: 'Dieses Hotel hat noch kein Konto beim Zahlungsanbieter: Nichts könnte bezahlt werden',
  },
  newRequestIntro:
    'Für eine telefonische Buchung oder einen per SMS gesendeten Link: dieselbe Anfrage wie aus dem PMS, mit denselben Prüfungen.',
  firstName: 'Vorname',
  lastName: 'Nachname',
  checkout: 'Abreise',
  roomType: 'Zimmerkategorie',
  createRequest: 'Anfrage erstellen',
  fixFields: 'Einige Felder sind zu korrigieren; es wurde nichts erstellt.',
  createdFlash: (ref) =>
    `${ref} erstellt. Der Zahlungslink steht unten: Kopieren Sie ihn oder lassen Sie die E-Mail senden.`,
  noHoldWarningShort:
    'Ohne Anreisedatum erfolgt keine Vorautorisierung: Bei Nichterscheinen könnte nichts abgebucht werden.',
  currency: 'Währung',
};

export const NEW_REQUEST_MESSAGES: Record<ControlLanguage, T> = { en, fr, de };
