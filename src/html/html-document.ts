import { type HtmlValue, html, type SafeHtml } from './safe-html.ts';

/**
 * The one page skeleton of the guest pages, the back office and the sandbox: a language, a
 * mobile viewport, and no search engine (a payment link or a back-office page is nobody's
 * search result). What differs goes in `head` (styles, scripts, a refresh) and `body`.
 */
export function htmlDocument(p: { lang: string; title: string; head?: HtmlValue; body: HtmlValue }): SafeHtml {
  return html`<!doctype html>
<html lang="${p.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${p.title}</title>
${p.head ?? ''}</head>
<body>
${p.body}
</body>
</html>
`;
}
