export { htmlDocument } from './html-document.js';
export { escapeHtml, type HtmlValue, html, SafeHtml } from './safe-html.js';
