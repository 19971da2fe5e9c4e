import { plural } from '../../i18n/index.ts';
import type { ControlLanguage } from '../shell/index.ts';

/**
 * The back office's words for a failed guarantee (docs/lifecycle.md, "A refused hold"): the
 * notice on the request's page and the requests list's filter, in English, French and German.
 */
export interface GuaranteeControlMessages {
  filterLabel: string;
  filterAny: string;
  filterFailed: string;
  /** On the request: the bank refused its hold; the hotel decides what happens next. */
  failedTitle: string;
  failedText: (when: string, failures: number, reason: string | null) => string;
  guestAsked: (asks: number) => string;
  guestNotAsked: string;
  nextSteps: string;
  /** A failure the guest has since answered with a new card. */
  recovered: (failures: number, when: string) => string;
  /** The bank refused to renew the hold: the current one guarantees until `ends`. */
  renewalRefused: (when: string, ends: string, reason: string | null) => string;
  /** What happens to a new card after a refused renewal. */
  renewalNextSteps: string;
  /** A hold declined softly before the check-in day: tried again, final on `final` (the check-in day). */
  declinedTitle: string;
  declinedText: (reason: string, final: string | null) => string;
}

const en: GuaranteeControlMessages = {
  filterLabel: 'Guarantee',
  filterAny: 'Any',
  filterFailed: 'Refused, waiting for a new card',
  failedTitle: 'Needs attention: the guarantee failed',
  failedText: (when, failures, reason) =>
    `The bank refused the hold of this guarantee on ${when}${reason ? ` (${reason})` : ''}. Holds refused for this request: ${failures}. The booking is not guaranteed.`,
  guestAsked: (asks) =>
    `The guest was e-mailed the payment link to register another card (${plural('en', asks, { one: 'once', other: '# times' })} so far).`,
  guestNotAsked: 'The guest was not e-mailed automatically: contact them with the payment link below.',
  nextSteps:
    'A new card given through the same link is held at the next run of the daily job (a superuser can run it at once: Scheduled jobs, Holds before arrival, Run now). Otherwise, cancel the request.',
  recovered: (failures, when) =>
    `The bank refused ${plural('en', failures, { one: '# hold', other: '# holds' })} of this guarantee, the last on ${when}; the guest has registered another card since.`,
  renewalRefused: (when, ends, reason) =>
    `The bank refused to renew the hold of this guarantee on ${when}${reason ? ` (${reason})` : ''}. The current hold still guarantees the stay until ${ends}, then lapses.`,
  renewalNextSteps:
    'A new card given through the same link is held at the next renewal run, which then releases the current hold. You may also capture what is owed before the hold lapses.',
  declinedTitle: 'The bank declined the hold: tried again tomorrow',
  declinedText: (reason, final) =>
    `The bank declined the hold of this guarantee for now${reason ? ` (${reason})` : ''}. The card stays the guarantee; the daily job tries again tomorrow morning${final ? `, and a refusal on ${final} (the check-in day) is final` : ''}. Contact the guest if the stay must be guaranteed sooner.`,
};

const fr: GuaranteeControlMessages = {
  filterLabel: 'Garantie',
  filterAny: 'Toutes',
  filterFailed: 'Refusée, en attente d’une nouvelle carte',
  failedTitle: 'À traiter : la garantie a échoué',
  failedText: (when, failures, reason) =>
    `La banque a refusé la garantie de cette demande le ${when}${reason ? ` (${reason})` : ''}. Garanties refusées pour cette demande : ${failures}. La réservation n’est pas garantie.`,
  guestAsked: (asks) =>
    `Le client a reçu le lien de paiement par e-mail pour enregistrer une autre carte (${asks} fois jusqu’ici).`,
  guestNotAsked: 'Le client n’a pas été prévenu automatiquement : contactez-le avec le lien de paiement ci-dessous.',
  nextSteps:
    'Une nouvelle carte donnée par le même lien est garantie au prochain passage de la tâche quotidienne (un super-utilisateur peut la lancer tout de suite : Tâches planifiées, Empreintes avant l’arrivée, Exécuter maintenant). Sinon, annulez la demande.',
  recovered: (failures, when) =>
    `La banque a refusé ${plural('fr', failures, { one: '# garantie', other: '# garanties' })} de cette demande, la dernière le ${when} ; le client a enregistré une autre carte depuis.`,
  renewalRefused: (when, ends, reason) =>
    `La banque a refusé le renouvellement de l’empreinte de cette garantie le ${when}${reason ? ` (${reason})` : ''}. L’empreinte actuelle garantit encore le séjour jusqu’au ${ends}, puis expire.`,
  renewalNextSteps:
    'Une nouvelle carte donnée par le même lien est garantie au prochain renouvellement, qui libère alors l’empreinte actuelle. Vous pouvez aussi encaisser ce qui est dû avant qu’elle n’expire.',
  declinedTitle: 'La banque a décliné la garantie : nouvel essai demain',
  declinedText: (reason, final) =>
    `La banque a décliné la garantie de cette demande pour l’instant${reason ? ` (${reason})` : ''}. La carte reste la garantie ; la tâche quotidienne réessaie demain matin${final ? `, et un refus le ${final} (jour d’arrivée) est définitif` : ''}. Contactez le client si le séjour doit être garanti plus tôt.`,
};

const de: GuaranteeControlMessages = {
  filterLabel: 'Garantie',
  filterAny: 'Alle',
  filterFailed: 'Abgelehnt, wartet auf eine neue Karte',
  failedTitle: 'Zu erledigen: Die Garantie ist fehlgeschlagen',
  failedText: (when, failures, reason) =>
    `Die Bank hat die Garantie dieser Anfrage am ${when} abgelehnt${reason ? ` (${reason})` : ''}. Abgelehnte Garantien dieser Anfrage: ${failures}. Die Reservierung ist nicht garantiert.`,
  guestAsked: (asks) =>
    `Der Gast hat den Zahlungslink per E-Mail erhalten, um eine andere Karte zu hinterlegen (bisher ${asks}-mal).`,
  guestNotAsked: 'Der Gast wurde nicht automatisch benachrichtigt: Kontaktieren Sie ihn mit dem Zahlungslink unten.',
  nextSteps:
    'Eine neue Karte über denselben Link wird beim nächsten Lauf des täglichen Jobs garantiert (ein Superuser kann ihn sofort starten: Geplante Aufgaben, Vorautorisierungen vor der Anreise, Jetzt ausführen). Andernfalls stornieren Sie die Anfrage.',
  recovered: (failures, when) =>
    `Die Bank hat ${plural('de', failures, { one: '# Garantie', other: '# Garantien' })} dieser Anfrage abgelehnt, zuletzt am ${when}; der Gast hat seitdem eine andere Karte hinterlegt.`,
  renewalRefused: (when, ends, reason) =>
    `Die Bank hat die Erneuerung der Vorautorisierung dieser Garantie am ${when} abgelehnt${reason ? ` (${reason})` : ''}. Die aktuelle Vorautorisierung garantiert den Aufenthalt noch bis ${ends} und läuft dann ab.`,
  renewalNextSteps:
    'Eine neue Karte über denselben Link wird bei der nächsten Erneuerung garantiert, die dann die aktuelle Vorautorisierung freigibt. Sie können auch vor dem Ablauf abbuchen, was geschuldet ist.',
  declinedTitle: 'Die Bank hat die Garantie vorläufig abgelehnt: morgen erneuter Versuch',
  declinedText: (reason, final) =>
    `Die Bank hat die Garantie dieser Anfrage vorerst abgelehnt${reason ? ` (${reason})` : ''}. Die Karte bleibt die Garantie; der tägliche Job versucht es morgen früh erneut${final ? `, und eine Ablehnung am ${final} (Anreisetag) ist endgültig` : ''}. Kontaktieren Sie den Gast, wenn der Aufenthalt früher garantiert sein muss.`,
};

export const GUARANTEE_CONTROL_MESSAGES: Record<ControlLanguage, GuaranteeControlMessages> = { en, fr, de };
