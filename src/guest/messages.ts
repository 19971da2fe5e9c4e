import type { Language } from '../domain/index.ts';
import { PAYMENT_WORDING, type PaymentWording } from '../i18n/index.ts';

/** A page's heading and its explanation. */
export interface Notice {
  title: string;
  text: string;
}

/**
 * Every string a guest can read, in each language the API accepts. One interface for all three,
 * so a string added in one language and forgotten in another does not compile.
 */
export interface Messages extends PaymentWording {
  securePayment: string;
  hotel: string;
  imprintHeading: string;
  depositHeading: string;
  cardHeading: string;
  cardNumber: string;
  expiry: string;
  expiryMonth: string;
  expiryYear: string;
  cvv: string;
  cvvHint: string;
  registerCard: string;
  pay: (amount: string) => string;
  providerNote: string;
  /**
   * The provider's card form is drawn by its script: shown where the form goes, for a browser
   * that runs no script or blocks the provider's (the script takes its place once it draws).
   */
  scriptNeeded: string;
  /** The button that sends the guest to the provider's own payment page (Stripe Checkout). */
  goToProvider: (provider: string) => string;
  /** Said beside it: where the guest goes, and that the card goes there, not to the hotel. */
  providerPageNote: (provider: string) => string;
  retryNotice: string;
  /** Shown above the card form when the provider is the sandbox: no one types a real card there. */
  testMode: string;
  tryAgain: string;
  refresh: string;
  registered: Notice;
  paid: (amount: string) => Notice;
  charged: (amount: string) => Notice;
  refused: Notice;
  /** A payment made on a request that could no longer take it, given back at once. */
  givenBack: Notice;
  error: Notice;
  cancelled: Notice;
  /** An IMPRINT's hold released by the hotel (the guest arrived): CANCELLED, nothing charged. */
  released: (amount: string) => Notice;
  expired: Notice;
  refunded: (amount: string) => Notice;
  processing: Notice;
  unavailable: Notice;
  tooManyRequests: Notice;
  notFound: Notice;
  failure: Notice;
  /** The PMS's booking reference, beside the payment's own reference. */
  bookingReference: string;
  amountPaidLabel: string;
  registeredOnLabel: string;
  termsLink: string;
  /** The hotel's contact block at the foot of every page of a known request. */
  contactHeading: string;
  phoneLabel: string;
  emailLabel: string;
  /** On the refused page: the request cannot be paid again, the hotel is who to talk to. */
  noRetry: string;
  /** Between a label and its value: French puts a (no-break) space before the colon. */
  colon: string;
}

const fr: Messages = {
  ...PAYMENT_WORDING.fr,
  securePayment: 'Paiement sécurisé',
  hotel: 'Établissement',
  imprintHeading: 'Garantie de votre réservation',
  depositHeading: 'Acompte de votre réservation',
  cardHeading: 'Votre carte bancaire',
  cardNumber: 'Numéro de carte',
  expiry: 'Date d’expiration',
  expiryMonth: 'Mois (MM)',
  expiryYear: 'Année (AAAA)',
  cvv: 'Cryptogramme visuel',
  cvvHint: 'Les 3 chiffres au dos de votre carte.',
  registerCard: 'Enregistrer ma carte',
  pay: (amount) => `Payer ${amount}`,
  providerNote:
    'Vos données de carte sont transmises directement à notre prestataire de paiement sécurisé ; l’établissement ne les voit jamais.',
  goToProvider: (provider) => `Continuer vers la page de paiement sécurisée de ${provider}`,
  providerPageNote: (provider) =>
    `Vous allez saisir votre carte sur la page sécurisée de ${provider}, notre prestataire de paiement, puis revenir ici ; l’établissement ne voit jamais vos données de carte.`,
  scriptNeeded:
    'Le formulaire de carte de notre prestataire de paiement s’affiche ici. S’il n’apparaît pas, ce navigateur bloque JavaScript ou le site du prestataire : autorisez-les pour cette page puis rechargez-la, ou ouvrez ce lien dans un autre navigateur. Aucun montant n’a été débité.',
  retryNotice:
    'Votre précédente tentative n’a pas abouti à cause d’une erreur technique. Aucun montant n’a été débité. Vous pouvez réessayer.',
  testMode: 'MODE TEST : paiement simulé, aucune carte réelle n’est débitée.',
  tryAgain: 'Réessayer',
  refresh: 'Actualiser',
  registered: {
    title: 'Carte enregistrée en garantie',
    text: 'Votre carte est bien enregistrée en garantie de votre réservation. Aucun montant n’a été débité. Vous n’avez rien d’autre à faire.',
  },
  paid: (amount) => ({
    title: 'Paiement reçu',
    text: `Votre paiement de ${amount} a bien été reçu. Merci !`,
  }),
  charged: (amount) => ({
    title: 'Montant débité',
    text: `L’établissement a débité ${amount} sur votre carte. Pour toute question, contactez l’établissement.`,
  }),
  givenBack: {
    title: 'Cette demande ne peut plus être payée',
    text: 'Cette demande était déjà réglée, annulée ou refusée. Le paiement que vous venez de faire vous a été intégralement rendu : rien n’a été conservé. Pour toute question, contactez l’établissement.',
  },
  refused: {
    title: 'Paiement refusé',
    text: 'Votre banque a refusé le paiement. Aucun montant n’a été débité.',
  },
  error: {
    title: 'Erreur technique',
    text: 'Le paiement n’a pas pu aboutir à cause d’une erreur technique. Aucun montant n’a été débité.',
  },
  cancelled: {
    title: 'Demande annulée',
    text: 'Cette demande de paiement a été annulée par l’établissement. Vous n’avez rien à faire.',
  },
  released: (amount) => ({
    title: 'Garantie levée',
    text: `L’établissement a levé la garantie de ${amount} posée sur votre carte. Aucun montant n’a été débité. Vous n’avez rien à faire.`,
  }),
  expired: {
    title: 'Lien expiré',
    text: 'Ce lien de paiement a expiré. Veuillez contacter l’établissement pour en recevoir un nouveau.',
  },
  refunded: (amount) => ({
    title: 'Paiement remboursé',
    text: `Ce paiement vous a été remboursé (${amount}).`,
  }),
  processing: {
    title: 'Paiement en cours de traitement',
    text: 'Nous attendons la confirmation de notre prestataire de paiement. Cela ne prend en général que quelques secondes : actualisez cette page pour voir le résultat.',
  },
  unavailable: {
    title: 'Paiement momentanément indisponible',
    text: 'Le paiement en ligne est momentanément indisponible. Aucun montant n’a été débité. Veuillez réessayer dans quelques minutes.',
  },
  tooManyRequests: {
    title: 'Trop de requêtes',
    text: 'Cette page a été demandée trop souvent. Veuillez patienter une minute, puis réessayer.',
  },
  notFound: {
    title: 'Lien de paiement introuvable',
    text: 'Ce lien de paiement n’existe pas ou n’est plus valide. Vérifiez le lien reçu ou contactez l’établissement.',
  },
  failure: {
    title: 'Une erreur est survenue',
    text: 'Une erreur inattendue est survenue. Aucun montant n’a été débité. Veuillez réessayer dans quelques minutes.',
  },
  bookingReference: 'Réservation',
  amountPaidLabel: 'Montant payé',
  registeredOnLabel: 'Enregistrée le',
  termsLink: 'Conditions générales et d’annulation',
  contactHeading: 'Contacter l’établissement',
  phoneLabel: 'Téléphone',
  emailLabel: 'E-mail',
  colon: '\u00a0: ',
  noRetry:
    'Cette demande ne peut pas être payée à nouveau en ligne. Veuillez contacter l’établissement pour convenir d’une autre solution.',
};

const en: Messages = {
  ...PAYMENT_WORDING.en,
  securePayment: 'Secure payment',
  hotel: 'Hotel',
  imprintHeading: 'Guarantee for your booking',
  depositHeading: 'Deposit for your booking',
  cardHeading: 'Your card',
  cardNumber: 'Card number',
  expiry: 'Expiry date',
  expiryMonth: 'Month (MM)',
  expiryYear: 'Year (YYYY)',
  cvv: 'Security code (CVV)',
  cvvHint: 'The 3 digits on the back of your card.',
  registerCard: 'Register my card',
  pay: (amount) => `Pay ${amount}`,
  providerNote: 'Your card details go directly to our secure payment provider; the hotel never sees them.',
  goToProvider: (provider) => `Continue to ${provider}’s secure payment page`,
  providerPageNote: (provider) =>
    `You will enter your card on the secure page of ${provider}, our payment provider, then come back here; the hotel never sees your card details.`,
  scriptNeeded:
    'Our payment provider’s card form appears here. If it does not, this browser is blocking JavaScript or the provider’s site: allow them for this page and reload it, or open this link in another browser. Nothing has been charged.',
  retryNotice: 'Your previous attempt failed because of a technical error. No money was taken. You can try again.',
  testMode: 'TEST MODE: simulated payment, no real card is charged.',
  tryAgain: 'Try again',
  refresh: 'Refresh',
  registered: {
    title: 'Card registered as a guarantee',
    text: 'Your card is registered as a guarantee for your booking. No money has been taken. There is nothing more to do.',
  },
  paid: (amount) => ({
    title: 'Payment received',
    text: `Your payment of ${amount} has been received. Thank you!`,
  }),
  charged: (amount) => ({
    title: 'Amount charged',
    text: `The hotel has charged ${amount} to your card. If you have any questions, please contact the hotel.`,
  }),
  givenBack: {
    title: 'This request can no longer be paid',
    text: 'This request was already settled, cancelled or refused. The payment you just made has been given back in full: nothing was kept. If you have any questions, please contact the hotel.',
  },
  refused: {
    title: 'Payment refused',
    text: 'Your bank refused the payment. No money has been taken.',
  },
  error: {
    title: 'Technical error',
    text: 'The payment could not be completed because of a technical error. No money has been taken.',
  },
  cancelled: {
    title: 'Request cancelled',
    text: 'This payment request was cancelled by the hotel. There is nothing for you to do.',
  },
  released: (amount) => ({
    title: 'Guarantee released',
    text: `The hotel has released the guarantee of ${amount} on your card. Nothing has been charged. There is nothing for you to do.`,
  }),
  expired: {
    title: 'Link expired',
    text: 'This payment link has expired. Please contact the hotel for a new one.',
  },
  refunded: (amount) => ({
    title: 'Payment refunded',
    text: `This payment has been refunded to you (${amount}).`,
  }),
  processing: {
    title: 'Processing your payment',
    text: 'We are waiting for confirmation from our payment provider. It usually takes a few seconds: refresh this page to see the outcome.',
  },
  unavailable: {
    title: 'Payment temporarily unavailable',
    text: 'Online payment is temporarily unavailable. No money has been taken. Please try again in a few minutes.',
  },
  tooManyRequests: {
    title: 'Too many requests',
    text: 'This page was requested too often. Please wait a minute, then try again.',
  },
  notFound: {
    title: 'Payment link not found',
    text: 'This payment link does not exist or is no longer valid. Check the link you received or contact the hotel.',
  },
  failure: {
    title: 'Something went wrong',
    text: 'An unexpected error occurred. No money has been taken. Please try again in a few minutes.',
  },
  bookingReference: 'Booking reference',
  amountPaidLabel: 'Amount paid',
  registeredOnLabel: 'Registered on',
  termsLink: 'Terms and cancellation policy',
  contactHeading: 'Contact the hotel',
  phoneLabel: 'Phone',
  emailLabel: 'E-mail',
  colon: ': ',
  noRetry: 'This request cannot be paid again online. Please contact the hotel to arrange another solution.',
};

const de: Messages = {
  ...PAYMENT_WORDING.de,
  securePayment: 'Sichere Zahlung',
  hotel: 'Unterkunft',
  imprintHeading: 'Garantie Ihrer Reservierung',
  depositHeading: 'Anzahlung für Ihre Reservierung',
  cardHeading: 'Ihre Karte',
  cardNumber: 'Kartennummer',
  expiry: 'Ablaufdatum',
  expiryMonth: 'Monat (MM)',
  expiryYear: 'Jahr (JJJJ)',
  cvv: 'Prüfnummer',
  cvvHint: 'Die 3 Ziffern auf der Rückseite Ihrer Karte.',
  registerCard: 'Karte hinterlegen',
  pay: (amount) => `${amount} bezahlen`,
  providerNote:
    'Ihre Kartendaten werden direkt an unseren sicheren Zahlungsdienstleister übermittelt; die Unterkunft sieht sie nie.',
  goToProvider: (provider) => `Weiter zur sicheren Zahlungsseite von ${provider}`,
  providerPageNote: (provider) =>
    `Sie geben Ihre Karte auf der sicheren Seite von ${provider}, unserem Zahlungsdienstleister, ein und kehren dann hierher zurück; die Unterkunft sieht Ihre Kartendaten nie.`,
  scriptNeeded:
    'Hier erscheint das Kartenformular unseres Zahlungsdienstleisters. Falls nicht, blockiert dieser Browser JavaScript oder die Seite des Dienstleisters: Erlauben Sie beides für diese Seite und laden Sie sie neu, oder öffnen Sie diesen Link in einem anderen Browser. Es wurde nichts abgebucht.',
  retryNotice:
    'Ihr letzter Versuch ist an einem technischen Fehler gescheitert. Es wurde nichts abgebucht. Sie können es erneut versuchen.',
  testMode: 'TESTMODUS: simulierte Zahlung, keine echte Karte wird belastet.',
  tryAgain: 'Erneut versuchen',
  refresh: 'Aktualisieren',
  registered: {
    title: 'Karte als Garantie hinterlegt',
    text: 'Ihre Karte ist als Garantie für Ihre Reservierung hinterlegt. Es wurde nichts abgebucht. Sie müssen nichts weiter tun.',
  },
  paid: (amount) => ({
    title: 'Zahlung erhalten',
    text: `Ihre Zahlung von ${amount} ist eingegangen. Vielen Dank!`,
  }),
  charged: (amount) => ({
    title: 'Betrag abgebucht',
    text: `Die Unterkunft hat ${amount} von Ihrer Karte abgebucht. Bei Fragen wenden Sie sich bitte an die Unterkunft.`,
  }),
  givenBack: {
    title: 'Diese Anfrage kann nicht mehr bezahlt werden',
    text: 'Diese Anfrage war bereits beglichen, storniert oder abgelehnt. Die soeben geleistete Zahlung wurde Ihnen vollständig zurückerstattet: Es wurde nichts einbehalten. Bei Fragen wenden Sie sich bitte an die Unterkunft.',
  },
  refused: {
    title: 'Zahlung abgelehnt',
    text: 'Ihre Bank hat die Zahlung abgelehnt. Es wurde nichts abgebucht.',
  },
  error: {
    title: 'Technischer Fehler',
    text: 'Die Zahlung konnte wegen eines technischen Fehlers nicht abgeschlossen werden. Es wurde nichts abgebucht.',
  },
  cancelled: {
    title: 'Anfrage storniert',
    text: 'Diese Zahlungsanfrage wurde von der Unterkunft storniert. Sie müssen nichts tun.',
  },
  released: (amount) => ({
    title: 'Garantie aufgehoben',
    text: `Die Unterkunft hat die Garantie über ${amount} auf Ihrer Karte aufgehoben. Es wurde nichts abgebucht. Sie müssen nichts tun.`,
  }),
  expired: {
    title: 'Link abgelaufen',
    text: 'Dieser Zahlungslink ist abgelaufen. Bitte wenden Sie sich an die Unterkunft, um einen neuen zu erhalten.',
  },
  refunded: (amount) => ({
    title: 'Zahlung erstattet',
    text: `Diese Zahlung wurde Ihnen erstattet (${amount}).`,
  }),
  processing: {
    title: 'Zahlung wird bearbeitet',
    text: 'Wir warten auf die Bestätigung unseres Zahlungsdienstleisters. Das dauert meist nur wenige Sekunden: Laden Sie diese Seite neu, um das Ergebnis zu sehen.',
  },
  unavailable: {
    title: 'Zahlung vorübergehend nicht möglich',
    text: 'Die Online-Zahlung ist vorübergehend nicht möglich. Es wurde nichts abgebucht. Bitte versuchen Sie es in einigen Minuten erneut.',
  },
  tooManyRequests: {
    title: 'Zu viele Anfragen',
    text: 'Diese Seite wurde zu oft aufgerufen. Bitte warten Sie eine Minute und versuchen Sie es dann erneut.',
  },
  notFound: {
    title: 'Zahlungslink nicht gefunden',
    text: 'Dieser Zahlungslink existiert nicht oder ist nicht mehr gültig. Prüfen Sie den erhaltenen Link oder wenden Sie sich an die Unterkunft.',
  },
  failure: {
    title: 'Ein Fehler ist aufgetreten',
    text: 'Ein unerwarteter Fehler ist aufgetreten. Es wurde nichts abgebucht. Bitte versuchen Sie es in einigen Minuten erneut.',
  },
  bookingReference: 'Buchungsnummer',
  amountPaidLabel: 'Bezahlter Betrag',
  registeredOnLabel: 'Hinterlegt am',
  termsLink: 'Geschäfts- und Stornobedingungen',
  contactHeading: 'Kontakt zur Unterkunft',
  phoneLabel: 'Telefon',
  emailLabel: 'E-Mail',
  colon: ': ',
  noRetry:
    'Diese Anfrage kann online nicht erneut bezahlt werden. Bitte wenden Sie sich an die Unterkunft, um eine andere Lösung zu finden.',
};

export const MESSAGES: Record<Language, Messages> = { fr, en, de };

/**
 * Pages for a request nobody can name (unknown uuid, rate limit before any lookup): in every
 * language a guest may have been written to, French first.
 */
export const FALLBACK_LANGUAGES: readonly Language[] = ['fr', 'en', 'de'];
