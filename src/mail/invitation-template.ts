import type { InvitationMailPayload, TenantMailRow } from '../db/index.ts';
import { html } from '../html/index.ts';
import { formatInstantWithZone } from '../i18n/index.ts';
import { oneLine } from './escape.ts';
import type { RenderedMail } from './templates.ts';

const ROLE_NAMES = {
  en: { viewer: 'Viewer', frontdesk: 'Front desk', manager: 'Manager' },
  fr: { viewer: 'Consultation', frontdesk: 'Réception', manager: 'Responsable' },
  de: { viewer: 'Lesen', frontdesk: 'Rezeption', manager: 'Leitung' },
} as const;

const WORDS = {
  en: {
    locale: 'en-GB',
    subject: (hotel: string) => `Invitation to work at ${hotel} in payreq`,
    intro: (hotel: string, role: string, by: string) =>
      `${by} invites you to use payreq's back office for ${hotel}, as ${role}.`,
    how: 'Open the link to choose your own username and password; if you already sign in to payreq, accept with your own account.',
    once: (until: string) => `The link works once, until ${until}.`,
    notYou: 'Not expecting this? Ignore this e-mail: nothing happens without the link.',
    open: 'Open the invitation',
  },
  fr: {
    locale: 'fr-FR',
    subject: (hotel: string) => `Invitation à travailler pour ${hotel} dans payreq`,
    intro: (hotel: string, role: string, by: string) =>
      `${by} vous invite à utiliser le back-office de payreq pour ${hotel}, avec le rôle ${role}.`,
    how: 'Ouvrez le lien pour choisir vous-même votre identifiant et votre mot de passe ; si vous vous connectez déjà à payreq, acceptez avec votre propre compte.',
    once: (until: string) => `Le lien ne sert qu’une fois, jusqu’au ${until}.`,
    notYou: 'Vous n’attendiez rien ? Ignorez cet e-mail : rien ne se passe sans le lien.',
    open: 'Ouvrir l’invitation',
  },
  de: {
    locale: 'de-DE',
    subject: (hotel: string) => `Einladung, in payreq für ${hotel} zu arbeiten`,
    intro: (hotel: string, role: string, by: string) =>
      `${by} lädt Sie ein, das Backoffice von payreq für ${hotel} zu nutzen, mit der Rolle ${role}.`,
    how: 'Öffnen Sie den Link, um Benutzernamen und Passwort selbst zu wählen; wenn Sie sich schon bei payreq anmelden, nehmen Sie mit Ihrem eigenen Konto an.',
    once: (until: string) => `Der Link gilt einmal, bis ${until}.`,
    notYou: 'Nichts erwartet? Ignorieren Sie diese E-Mail: ohne den Link geschieht nichts.',
    open: 'Einladung öffnen',
  },
} as const;

/** The page the link opens: the token is the whole secret, in the path. */
export function invitationUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/control/join/${encodeURIComponent(token)}`;
}

/** The e-mail of an invitation to work at a hotel, in the inviting manager's language. */
export function renderInvitation(p: InvitationMailPayload, tenant: TenantMailRow, publicBaseUrl: string): RenderedMail {
  const w = WORDS[p.language] ?? WORDS.en;
  const hotel = oneLine(tenant.name);
  const role = (ROLE_NAMES[p.language] ?? ROLE_NAMES.en)[p.role];
  const by = oneLine(p.invited_by ?? hotel);
  const until = formatInstantWithZone(new Date(p.expires_at), w.locale, tenant.timezone);
  const url = invitationUrl(publicBaseUrl, p.token);
  const text = [w.intro(hotel, role, by), '', w.how, '', url, '', w.once(until), w.notYou, ''].join('\n');
  const body = html`<!doctype html>
<html lang="${p.language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${w.subject(hotel)}</title></head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b">
<main style="display:block;max-width:640px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">
<h1 style="font-size:18px;margin:0 0 16px">${hotel}</h1>
<p>${w.intro(hotel, role, by)}</p>
<p>${w.how}</p>
<p style="margin:24px 0"><a href="${url}" style="color:#1d4ed8">${w.open}</a></p>
<p>${w.once(until)}</p>
<p style="color:#52525b">${w.notYou}</p>
</main>
</body>
</html>`;
  return { subject: oneLine(w.subject(hotel)), text, html: body.value };
}
