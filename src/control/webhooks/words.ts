/**
 * The words of the Webhooks pages (/control/webhooks), in English, French and German, read as
 * `WEBHOOK_MESSAGES[ctx.language]` (the menu's entry is the shell's, `m.navWebhooks`). Their
 * audit actions are also the audit page's. A string missing in one language is a type error.
 */
import type { AddressClass, WebhookProblem } from '../../webhooks/index.ts';
import type { ControlLanguage } from '../shell/index.ts';

/** Why an address is refused, in one language: a kind missing is a type error. */
type ProblemWords = { [K in WebhookProblem['kind']]: (p: Extract<WebhookProblem, { kind: K }>) => string };

const CLASSES_EN: Record<AddressClass, string> = {
  loopback: 'a loopback address (this server itself)',
  private: 'a private network address',
  shared: 'a shared (carrier) network address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  multicast: 'a multicast address',
  unspecified: 'no address (unspecified)',
  reserved: 'a reserved address',
};

const en = {
  title: 'Webhooks',
  intro:
    'payreq sends each event of this hotel (a request created, paid, refunded…) to these addresses, signed with the endpoint’s secret, so that your PMS learns of it at once.',
  endpoints: 'Endpoints',
  url: 'URL',
  events: 'Events',
  everyEvent: 'Every event',
  state: 'State',
  states: { enabled: 'Enabled', disabled: 'Disabled' } as Record<string, string>,
  failingSince: (when: string) => `Failing since ${when}`,
  disabledOn: (when: string) => `Since ${when}`,
  lastDelivery: 'Last attempt',
  noAttemptYet: 'None yet',
  failures: 'Failures',
  failureCounts: (failed: number, pending: number) => `${failed} failed, ${pending} waiting`,
  oldSecretUntil: (when: string) => `The previous secret also signs until ${when}.`,
  noEndpoints: 'No endpoint yet: add one below.',
  log: 'Delivery log',
  logOf: (url: string) => `Delivery log of ${url}`,
  disable: 'Disable',
  disableOf: (url: string) => `Disable ${url}`,
  enable: 'Enable',
  enableOf: (url: string) => `Enable ${url}`,
  rotate: 'Rotate the secret',
  rotateOf: (url: string) => `Rotate the secret of ${url}`,
  // Creating
  addTitle: 'Add an endpoint',
  urlHint:
    'Where payreq POSTs the events: https:// in production. Addresses of the server’s own network (loopback, private, link-local) are refused unless the operator allows them.',
  eventsLegend: 'Events to send',
  eventsHint: 'None ticked: every event, types added later included.',
  add: 'Add the endpoint',
  created: 'The endpoint is added.',
  invalid: (reason: string) => `The endpoint was not added: ${reason}`,
  problems: {
    required: () => 'the URL is required.',
    notAUrl: () => 'this is not a web address (https://…).',
    scheme: () => 'the address must start with https:// (or http://).',
    httpsOnly: () => 'the address must start with https://: events carry guests’ names and e-mail addresses.',
    credentials: () => 'the address must not hold a user name or password.',
    tooLong: (p) => `the address is longer than ${p.max} characters.`,
    forbiddenAddress: (p) =>
      `${p.host === p.address ? p.address : `${p.host} leads to ${p.address}`}, ${CLASSES_EN[p.addressClass]}. Webhooks go to addresses on the internet; for a PMS on the hotel’s own network, ask whoever runs payreq.`,
    unknownEvents: (p) => `unknown event ${p.events}.`,
  } as ProblemWords,
  // A secret, shown once
  secretTitle: 'The signing secret',
  secretText:
    'Store it in your receiver now: it is shown this once and cannot be displayed again. Each delivery carries Payreq-Signature, an HMAC-SHA-256 made with it.',
  secretLabel: (url: string) => `Secret of ${url}`,
  rotatedTitle: 'The new signing secret',
  rotatedText: (until: string) =>
    `Store it in your receiver: it is shown this once. Until ${until}, each delivery is signed with both the new and the previous secret, so the receiver keeps working while you change it.`,
  // Confirmations
  confirmDisable: (url: string) =>
    `Disable ${url}? Nothing more is sent to it, and the deliveries waiting for it fail now. Once it is enabled again, you can send them again from its delivery log.`,
  confirmRotate: (url: string) =>
    `Give ${url} a new signing secret? The current one keeps signing beside it for 24 hours, time to install the new one in the receiver. Rotating again within that time ends the older one at once.`,
  disabled: 'The endpoint is disabled.',
  enabled: 'The endpoint is enabled: deliveries of new events start again.',
  // The delivery log
  logIntro:
    'Each delivery of an event to this endpoint, newest first, with every attempt: when, the answer (an HTTP status or the error) and how long it took. Delivered ones are kept 30 days.',
  endpoint: 'Endpoint',
  event: 'Event',
  delivery: 'State',
  deliveryStates: { pending: 'Waiting', delivered: 'Delivered', failed: 'Failed' } as Record<string, string>,
  attempts: 'Attempts',
  attemptLine: (n: number, when: string, result: string, ms: number) => `Attempt ${n}, ${when}: ${result} (${ms} ms)`,
  httpStatus: (status: number) => `HTTP ${status}`,
  notTriedYet: 'Not tried yet',
  nextAttempt: (when: string) => `Next attempt ${when}`,
  eventGone: 'event no longer kept',
  resend: 'Send again',
  resendOf: (event: string) => `Send again: event ${event}`,
  resent: 'Queued again: it is sent within seconds.',
  notResent:
    'Not sent again: the endpoint is disabled, the delivery is already waiting, or its event is no longer kept (90 days).',
  noDeliveries: 'Nothing was sent to this endpoint yet.',
  older: 'Older deliveries',
  newest: 'Newest deliveries',
  backToList: 'Back to the webhooks',
  eventNames: {
    PARTIALLY_REFUNDED: 'Partially refunded',
    DELETED: 'Deleted',
    INCIDENT: 'Incident (money sent back)',
    GUARANTEE_FAILED: 'Guarantee failed (the bank refused the hold)',
    HOLD_DECLINED: 'Hold refused, tried again later',
    HOLD_RENEWED: 'Hold renewed',
    RELEASED: 'Hold released',
  } as Record<string, string>,
  auditDetail: {
    url: 'URL',
    events: 'Events',
    delivery: 'Delivery',
    previous_secret_expires_at: 'Previous secret signs until',
  } as Record<string, string>,
  auditActions: {
    webhook_created: 'Webhook endpoint added',
    webhook_disabled: 'Webhook endpoint disabled by hand',
    webhook_enabled: 'Webhook endpoint enabled',
    webhook_secret_rotated: 'Webhook secret rotated',
    webhook_resent: 'Webhook delivery sent again',
  } as Record<string, string>,
};

export type WebhookMessages = typeof en;

const CLASSES_FR: Record<AddressClass, string> = {
  loopback: 'une adresse de bouclage (ce serveur lui-même)',
  private: 'une adresse de réseau privé',
  shared: 'une adresse de réseau partagé (opérateur)',
  'link-local': 'une adresse lien-local',
  metadata: 'une adresse de métadonnées du cloud',
  multicast: 'une adresse de multidiffusion',
  unspecified: 'une adresse non spécifiée',
  reserved: 'une adresse réservée',
};

const CLASSES_DE: Record<AddressClass, string> = {
  loopback: 'eine Loopback-Adresse (dieser Server selbst)',
  private: 'eine Adresse eines privaten Netzes',
  shared: 'eine Adresse eines geteilten Netzes (Provider)',
  'link-local': 'eine link-lokale Adresse',
  metadata: 'eine Metadaten-Adresse der Cloud',
  multicast: 'eine Multicast-Adresse',
  unspecified: 'keine Adresse (unbestimmt)',
  reserved: 'eine reservierte Adresse',
};

/** A refusal of the endpoint form, in the page's words. */
export function sayWebhookProblem(w: WebhookMessages, p: WebhookProblem): string {
  return w.invalid((w.problems[p.kind] as (p: WebhookProblem) => string)(p));
}

const fr: WebhookMessages = {
  title: 'Webhooks',
  intro:
    'payreq envoie chaque événement de cet établissement (une demande créée, payée, remboursée…) à ces adresses, signé avec le secret du webhook, pour que votre PMS l’apprenne aussitôt.',
  endpoints: 'Adresses de réception',
  url: 'URL',
  events: 'Événements',
  everyEvent: 'Tous les événements',
  state: 'État',
  states: { enabled: 'Activé', disabled: 'Désactivé' },
  failingSince: (when) => `En échec depuis le ${when}`,
  disabledOn: (when) => `Depuis le ${when}`,
  lastDelivery: 'Dernier envoi',
  noAttemptYet: 'Aucun pour l’instant',
  failures: 'Échecs',
  failureCounts: (failed, pending) => `${failed} en échec, ${pending} en attente`,
  oldSecretUntil: (when) => `L’ancien secret signe aussi jusqu’au ${when}.`,
  noEndpoints: 'Aucune adresse pour l’instant : ajoutez-en une ci-dessous.',
  log: 'Journal des envois',
  logOf: (url) => `Journal des envois de ${url}`,
  disable: 'Désactiver',
  disableOf: (url) => `Désactiver ${url}`,
  enable: 'Activer',
  enableOf: (url) => `Activer ${url}`,
  rotate: 'Changer le secret',
  rotateOf: (url) => `Changer le secret de ${url}`,
  addTitle: 'Ajouter une adresse',
  urlHint:
    'Où payreq envoie les événements (POST) : https:// en production. Les adresses du réseau du serveur lui-même (boucle locale, privées, lien local) sont refusées, sauf si l’exploitant les autorise.',
  eventsLegend: 'Événements à envoyer',
  eventsHint: 'Aucun coché : tous les événements, y compris les types ajoutés plus tard.',
  add: 'Ajouter l’adresse',
  created: 'L’adresse est ajoutée.',
  invalid: (reason) => `L’adresse n’a pas été ajoutée : ${reason}`,
  problems: {
    required: () => 'l’adresse est obligatoire.',
    notAUrl: () => 'ce n’est pas une adresse web (https://…).',
    scheme: () => 'l’adresse doit commencer par https:// (ou http://).',
    httpsOnly: () =>
      'l’adresse doit commencer par https:// : les événements portent le nom et l’adresse e-mail des clients.',
    credentials: () => 'l’adresse ne doit contenir ni nom d’utilisateur ni mot de passe.',
    tooLong: (p) => `l’adresse dépasse ${p.max} caractères.`,
    forbiddenAddress: (p) =>
      `${p.host === p.address ? p.address : `${p.host} mène à ${p.address}`}, ${CLASSES_FR[p.addressClass]}. Les webhooks vont vers des adresses d’internet ; pour un PMS sur le réseau de l’hôtel, adressez-vous à qui exploite payreq.`,
    unknownEvents: (p) => `événement inconnu ${p.events}.`,
  },
  secretTitle: 'Le secret de signature',
  secretText:
    'Enregistrez-le maintenant dans votre récepteur : il n’est affiché que cette fois et ne pourra plus l’être. Chaque envoi porte Payreq-Signature, un HMAC-SHA-256 calculé avec lui.',
  secretLabel: (url) => `Secret de ${url}`,
  rotatedTitle: 'Le nouveau secret de signature',
  rotatedText: (until) =>
    `Enregistrez-le dans votre récepteur : il n’est affiché que cette fois. Jusqu’au ${until}, chaque envoi est signé avec le nouveau et l’ancien secret : le récepteur continue de fonctionner pendant que vous le changez.`,
  confirmDisable: (url) =>
    `Désactiver ${url} ? Plus rien ne lui est envoyé et les envois en attente échouent maintenant. Une fois l’adresse réactivée, vous pourrez les renvoyer depuis son journal.`,
  confirmRotate: (url) =>
    `Donner un nouveau secret de signature à ${url} ? L’actuel continue de signer à côté pendant 24 heures, le temps d’installer le nouveau dans le récepteur. Le changer de nouveau pendant ce délai met fin aussitôt au plus ancien.`,
  disabled: 'L’adresse est désactivée.',
  enabled: 'L’adresse est activée : les envois des nouveaux événements reprennent.',
  logIntro:
    'Chaque envoi d’un événement à cette adresse, du plus récent au plus ancien, avec chaque tentative : quand, la réponse (un statut HTTP ou l’erreur) et sa durée. Les envois réussis sont gardés 30 jours.',
  endpoint: 'Adresse',
  event: 'Événement',
  delivery: 'État',
  deliveryStates: { pending: 'En attente', delivered: 'Livré', failed: 'En échec' },
  attempts: 'Tentatives',
  attemptLine: (n, when, result, ms) => `Tentative ${n}, ${when} : ${result} (${ms} ms)`,
  httpStatus: (status) => `HTTP ${status}`,
  notTriedYet: 'Pas encore tenté',
  nextAttempt: (when) => `Prochaine tentative le ${when}`,
  eventGone: 'événement plus conservé',
  resend: 'Renvoyer',
  resendOf: (event) => `Renvoyer : événement ${event}`,
  resent: 'Remis en file : il est envoyé dans quelques secondes.',
  notResent:
    'Pas renvoyé : l’adresse est désactivée, l’envoi est déjà en attente, ou son événement n’est plus conservé (90 jours).',
  noDeliveries: 'Rien n’a encore été envoyé à cette adresse.',
  older: 'Envois plus anciens',
  newest: 'Envois les plus récents',
  backToList: 'Retour aux webhooks',
  eventNames: {
    PARTIALLY_REFUNDED: 'Remboursé en partie',
    DELETED: 'Supprimé',
    INCIDENT: 'Incident (argent renvoyé)',
    GUARANTEE_FAILED: 'Garantie échouée (la banque a refusé l’empreinte)',
    HOLD_DECLINED: 'Empreinte refusée, nouvel essai plus tard',
    HOLD_RENEWED: 'Empreinte renouvelée',
    RELEASED: 'Empreinte libérée',
  },
  auditDetail: {
    url: 'URL',
    events: 'Événements',
    delivery: 'Envoi',
    previous_secret_expires_at: 'L’ancien secret signe jusqu’au',
  },
  auditActions: {
    webhook_created: 'Webhook ajouté',
    webhook_disabled: 'Webhook désactivé à la main',
    webhook_enabled: 'Webhook activé',
    webhook_secret_rotated: 'Secret de webhook changé',
    webhook_resent: 'Envoi de webhook renvoyé',
  },
};

const de: WebhookMessages = {
  title: 'Webhooks',
  intro:
    'payreq sendet jedes Ereignis dieses Hauses (eine Anfrage erstellt, bezahlt, erstattet …) an diese Adressen, signiert mit dem Geheimnis des Webhooks, damit Ihr PMS sofort davon erfährt.',
  endpoints: 'Empfangsadressen',
  url: 'URL',
  events: 'Ereignisse',
  everyEvent: 'Alle Ereignisse',
  state: 'Zustand',
  states: { enabled: 'Aktiv', disabled: 'Deaktiviert' },
  failingSince: (when) => `Fehlgeschlagen seit ${when}`,
  disabledOn: (when) => `Seit ${when}`,
  lastDelivery: 'Letzter Versuch',
  noAttemptYet: 'Noch keiner',
  failures: 'Fehler',
  failureCounts: (failed, pending) => `${failed} fehlgeschlagen, ${pending} wartend`,
  oldSecretUntil: (when) => `Das vorige Geheimnis signiert noch bis ${when} mit.`,
  noEndpoints: 'Noch keine Adresse: Fügen Sie unten eine hinzu.',
  log: 'Zustellprotokoll',
  logOf: (url) => `Zustellprotokoll von ${url}`,
  disable: 'Deaktivieren',
  disableOf: (url) => `Deaktivieren: ${url}`,
  enable: 'Aktivieren',
  enableOf: (url) => `Aktivieren: ${url}`,
  rotate: 'Geheimnis erneuern',
  rotateOf: (url) => `Geheimnis erneuern: ${url}`,
  addTitle: 'Adresse hinzufügen',
  urlHint:
    'Wohin payreq die Ereignisse sendet (POST): im Produktivbetrieb https://. Adressen aus dem eigenen Netz des Servers (Loopback, privat, link-lokal) werden abgelehnt, außer der Betreiber erlaubt sie.',
  eventsLegend: 'Zu sendende Ereignisse',
  eventsHint: 'Keines angekreuzt: alle Ereignisse, auch später hinzukommende Typen.',
  add: 'Adresse hinzufügen',
  created: 'Die Adresse ist hinzugefügt.',
  invalid: (reason) => `Die Adresse wurde nicht hinzugefügt: ${reason}`,
  problems: {
    required: () => 'Die Adresse ist erforderlich.',
    notAUrl: () => 'Das ist keine Webadresse (https://…).',
    scheme: () => 'Die Adresse muss mit https:// (oder http://) beginnen.',
    httpsOnly: () =>
      'Die Adresse muss mit https:// beginnen: Ereignisse enthalten Namen und E-Mail-Adressen der Gäste.',
    credentials: () => 'Die Adresse darf weder Benutzernamen noch Passwort enthalten.',
    tooLong: (p) => `Die Adresse ist länger als ${p.max} Zeichen.`,
    forbiddenAddress: (p) =>
      `${p.host === p.address ? p.address : `${p.host} führt zu ${p.address}`}: ${CLASSES_DE[p.addressClass]}. Webhooks gehen an Adressen im Internet; für ein PMS im eigenen Netz des Hotels wenden Sie sich an den Betreiber von payreq.`,
    unknownEvents: (p) => `Unbekanntes Ereignis ${p.events}.`,
  },
  secretTitle: 'Das Signaturgeheimnis',
  secretText:
    'Hinterlegen Sie es jetzt in Ihrem Empfänger: Es wird nur dieses eine Mal angezeigt. Jede Zustellung trägt Payreq-Signature, einen damit berechneten HMAC-SHA-256.',
  secretLabel: (url) => `Geheimnis von ${url}`,
  rotatedTitle: 'Das neue Signaturgeheimnis',
  rotatedText: (until) =>
    `Hinterlegen Sie es in Ihrem Empfänger: Es wird nur dieses eine Mal angezeigt. Bis ${until} wird jede Zustellung mit dem neuen und dem vorigen Geheimnis signiert, sodass der Empfänger während der Umstellung weiter funktioniert.`,
  confirmDisable: (url) =>
    `${url} deaktivieren? Es wird nichts mehr dorthin gesendet, und wartende Zustellungen schlagen jetzt fehl. Nach dem erneuten Aktivieren können Sie sie aus dem Zustellprotokoll erneut senden.`,
  confirmRotate: (url) =>
    `${url} ein neues Signaturgeheimnis geben? Das aktuelle signiert 24 Stunden lang mit, Zeit genug, das neue im Empfänger zu hinterlegen. Eine weitere Erneuerung in dieser Zeit beendet das ältere sofort.`,
  disabled: 'Die Adresse ist deaktiviert.',
  enabled: 'Die Adresse ist aktiv: Zustellungen neuer Ereignisse beginnen wieder.',
  logIntro:
    'Jede Zustellung eines Ereignisses an diese Adresse, die neueste zuerst, mit jedem Versuch: wann, die Antwort (ein HTTP-Status oder der Fehler) und die Dauer. Erfolgreiche werden 30 Tage aufbewahrt.',
  endpoint: 'Adresse',
  event: 'Ereignis',
  delivery: 'Zustand',
  deliveryStates: { pending: 'Wartend', delivered: 'Zugestellt', failed: 'Fehlgeschlagen' },
  attempts: 'Versuche',
  attemptLine: (n, when, result, ms) => `Versuch ${n}, ${when}: ${result} (${ms} ms)`,
  httpStatus: (status) => `HTTP ${status}`,
  notTriedYet: 'Noch nicht versucht',
  nextAttempt: (when) => `Nächster Versuch ${when}`,
  eventGone: 'Ereignis nicht mehr aufbewahrt',
  resend: 'Erneut senden',
  resendOf: (event) => `Erneut senden: Ereignis ${event}`,
  resent: 'Erneut eingereiht: Es wird in wenigen Sekunden gesendet.',
  notResent:
    'Nicht erneut gesendet: Die Adresse ist deaktiviert, die Zustellung wartet bereits, oder ihr Ereignis wird nicht mehr aufbewahrt (90 Tage).',
  noDeliveries: 'An diese Adresse wurde noch nichts gesendet.',
  older: 'Ältere Zustellungen',
  newest: 'Neueste Zustellungen',
  backToList: 'Zurück zu den Webhooks',
  eventNames: {
    PARTIALLY_REFUNDED: 'Teilweise erstattet',
    DELETED: 'Gelöscht',
    INCIDENT: 'Vorfall (Geld zurückgesendet)',
    GUARANTEE_FAILED: 'Garantie fehlgeschlagen (die Bank hat die Vorautorisierung abgelehnt)',
    HOLD_DECLINED: 'Vorautorisierung abgelehnt, neuer Versuch später',
    HOLD_RENEWED: 'Vorautorisierung erneuert',
    RELEASED: 'Vorautorisierung freigegeben',
  },
  auditDetail: {
    url: 'URL',
    events: 'Ereignisse',
    delivery: 'Zustellung',
    previous_secret_expires_at: 'Voriges Geheimnis signiert bis',
  },
  auditActions: {
    webhook_created: 'Webhook hinzugefügt',
    webhook_disabled: 'Webhook von Hand deaktiviert',
    webhook_enabled: 'Webhook aktiviert',
    webhook_secret_rotated: 'Webhook-Geheimnis erneuert',
    webhook_resent: 'Webhook-Zustellung erneut gesendet',
  },
};

export const WEBHOOK_MESSAGES: Record<ControlLanguage, WebhookMessages> = { en, fr, de };
