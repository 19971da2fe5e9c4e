import { DAY_PLAN_WORDS } from '../../day-plan/index.ts';
import type { ControlLanguage } from '../shell/index.ts';

/**
 * The words of the Today page, of the "Reminders and digest" settings and of reminders in a
 * request's history, in English, French and German. The lists' words are the digest's
 * (DAY_PLAN_WORDS), so the page and the e-mail say the same. Read as
 * `TODAY_MESSAGES[ctx.language]`; a string missing in one language is a type error.
 */
const en = {
  ...DAY_PLAN_WORDS.en,
  title: 'Today',
  intro: (date: string, zone: string) => `What needs someone today, ${date}. Times in ${zone}.`,
  guest: 'Guest',
  guarantee: 'Guarantee',
  when: 'When',
  checkin: 'Check-in',
  bankAnswer: 'Bank’s answer',
  next: 'Next',
  allBooks: 'The Books page has the details and what to do.',
  settingsHeading: 'Reminders and digest',
  settingsIntro:
    'Reminders e-mail the guest the payment link again while it is not paid, in the request’s language. The digest e-mails the contact e-mail address (Guest page) each morning what needs someone today.',
  settingLabels: {
    reminders: 'Remind guests of unpaid payment links',
    reminder_after_hours: 'First reminder after (hours), then every as many hours; 0: none',
    reminder_before_expiry_hours: 'Last reminder before the link expires (hours); 0: none',
    reminder_max: 'Reminders a request gets at most',
    digest_email: 'E-mail the hotel a daily digest',
    digest_hour: 'Digest hour (0 to 23, hotel time)',
    digest_language: 'Digest language',
  } as Record<string, string>,
  jobNames: {
    send_payment_reminders: 'Reminders of unpaid links',
    send_daily_digests: 'Daily digests',
  } as Record<string, string>,
  reminderQueued: (n: number) => `Reminder ${n} queued`,
  reminderSent: (n: number) => `Reminder ${n} sent`,
  reminderNotSent: (n: number) => `Reminder ${n} not sent`,
  reminderSource: 'Reminders',
};

export type TodayMessages = typeof en;

const fr: TodayMessages = {
  ...DAY_PLAN_WORDS.fr,
  title: 'Aujourd’hui',
  intro: (date, zone) => `Ce qui demande l’attention de quelqu’un aujourd’hui, ${date}. Heures en ${zone}.`,
  guest: 'Client',
  guarantee: 'Garantie',
  when: 'Quand',
  checkin: 'Arrivée',
  bankAnswer: 'Réponse de la banque',
  next: 'Ensuite',
  allBooks: 'La page Comptes donne le détail et ce qu’il faut faire.',
  settingsHeading: 'Relances et résumé',
  settingsIntro:
    'Les relances renvoient au client le lien de paiement tant qu’il n’est pas payé, dans la langue de la demande. Le résumé envoie chaque matin à l’e-mail de contact (Page du client) ce qui demande l’attention de quelqu’un.',
  settingLabels: {
    reminders: 'Relancer les clients dont le lien de paiement n’est pas payé',
    reminder_after_hours: 'Première relance après (heures), puis toutes les mêmes heures ; 0 : aucune',
    reminder_before_expiry_hours: 'Dernière relance avant l’expiration du lien (heures) ; 0 : aucune',
    reminder_max: 'Nombre maximal de relances par demande',
    digest_email: 'Envoyer un résumé quotidien à l’hôtel',
    digest_hour: 'Heure du résumé (0 à 23, heure de l’hôtel)',
    digest_language: 'Langue du résumé',
  },
  jobNames: {
    send_payment_reminders: 'Relances des liens non payés',
    send_daily_digests: 'Résumés quotidiens',
  },
  reminderQueued: (n) => `Relance ${n} en attente d’envoi`,
  reminderSent: (n) => `Relance ${n} envoyée`,
  reminderNotSent: (n) => `Relance ${n} non envoyée`,
  reminderSource: 'Relances',
};

const de: TodayMessages = {
  ...DAY_PLAN_WORDS.de,
  title: 'Heute',
  intro: (date, zone) => `Was heute, ${date}, Aufmerksamkeit braucht. Zeiten in ${zone}.`,
  guest: 'Gast',
  guarantee: 'Garantie',
  when: 'Wann',
  checkin: 'Anreise',
  bankAnswer: 'Antwort der Bank',
  next: 'Weiter',
  allBooks: 'Die Seite Buchhaltung zeigt die Einzelheiten und was zu tun ist.',
  settingsHeading: 'Erinnerungen und Zusammenfassung',
  settingsIntro:
    'Erinnerungen senden dem Gast den Zahlungslink erneut, solange er nicht bezahlt ist, in der Sprache der Anfrage. Die Zusammenfassung geht jeden Morgen an die Kontakt-E-Mail (Gastseite) mit allem, was heute Aufmerksamkeit braucht.',
  settingLabels: {
    reminders: 'Gäste an unbezahlte Zahlungslinks erinnern',
    reminder_after_hours: 'Erste Erinnerung nach (Stunden), dann alle so viele Stunden; 0: keine',
    reminder_before_expiry_hours: 'Letzte Erinnerung vor Ablauf des Links (Stunden); 0: keine',
    reminder_max: 'Höchstzahl der Erinnerungen je Anfrage',
    digest_email: 'Dem Hotel eine tägliche Zusammenfassung senden',
    digest_hour: 'Uhrzeit der Zusammenfassung (0 bis 23, Hotelzeit)',
    digest_language: 'Sprache der Zusammenfassung',
  },
  jobNames: {
    send_payment_reminders: 'Erinnerungen an unbezahlte Links',
    send_daily_digests: 'Tägliche Zusammenfassungen',
  },
  reminderQueued: (n) => `Erinnerung ${n} wartet auf Versand`,
  reminderSent: (n) => `Erinnerung ${n} gesendet`,
  reminderNotSent: (n) => `Erinnerung ${n} nicht gesendet`,
  reminderSource: 'Erinnerungen',
};

export const TODAY_MESSAGES: Record<ControlLanguage, TodayMessages> = { en, fr, de };
