export { htmlDocument } from './html-document.ts';
export { escapeHtml, type HtmlValue, html, SafeHtml } from './safe-html.ts';
