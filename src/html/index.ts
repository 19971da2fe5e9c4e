export { escapeHtml, type HtmlValue, html, SafeHtml } from './safe-html.js';
