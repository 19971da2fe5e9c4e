/** Where the stylesheet is served: a file of our own origin, so the CSP needs no 'unsafe-inline'. */
export const STYLESHEET_PATH = '/payment/assets/guest.css';

/** The default accent: the page's own dark blue (white text on it: 12.6:1). */
export const DEFAULT_ACCENT = '#12355b';

/**
 * The hotel's accent colour as a stylesheet of its own, named by the colour: it sets one custom
 * property, so the strict CSP (style-src 'self', no inline style) holds, and the file for a
 * colour never changes, so browsers keep it for good.
 */
const ACCENT_FILE = /^([0-9a-f]{6})\.css$/;
export const ACCENT_STYLESHEET_PREFIX = '/payment/assets/accent/';

export function accentStylesheetPath(hex: string): string {
  return `${ACCENT_STYLESHEET_PREFIX}${hex.replace(/^#/, '').toLowerCase()}.css`;
}

/** The stylesheet for a file name such as `1f4e79.css`; undefined for anything else. */
export function accentCss(file: string): string | undefined {
  const m = ACCENT_FILE.exec(file);
  return m ? `:root { --accent: #${m[1]}; }\n` : undefined;
}

/**
 * Mobile first: one column, 16px inputs (no zoom on focus in mobile browsers), a wider card
 * only from 40rem. Colours keep at least 7:1 contrast for text and 4.5:1 for borders of
 * controls; focus is a thick outline that never depends on colour alone. The hotel's accent
 * (--accent) colours the header, buttons and links: it was checked for 4.5:1 with white text
 * and with the page background when it was set.
 */
export const GUEST_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 1rem;
  line-height: 1.5;
  color: #1b1b1f;
  background: #f3f4f6;
  overflow-wrap: anywhere;
}
.site {
  background: var(--accent, ${DEFAULT_ACCENT});
  color: #ffffff;
  padding: 0.75rem 1rem;
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 0.5rem 0.75rem;
}
.site p { margin: 0; }
.site .hotel { font-weight: 700; font-size: 1.125rem; }
.site .secure { flex-basis: 100%; }
.site .logo {
  display: block;
  height: 3rem;
  width: auto;
  max-width: 10rem;
  object-fit: contain;
  background: #ffffff;
  border-radius: 0.25rem;
  padding: 0.25rem;
}
.site .secure { font-size: 0.875rem; }
main {
  display: block;
  max-width: 36rem;
  margin: 0 auto;
  padding: 1rem;
}
.card {
  background: #ffffff;
  border: 1px solid #c9ccd2;
  border-radius: 0.5rem;
  padding: 1rem;
  margin-bottom: 1rem;
}
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 0.75rem; }
h2 { font-size: 1.25rem; line-height: 1.3; margin: 0 0 0.75rem; }
p { margin: 0 0 0.75rem; }
.summary { margin: 0 0 1rem; display: grid; grid-template-columns: 1fr; gap: 0.25rem; }
.summary div { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 1rem; }
.summary dt { color: #3d4149; }
.summary dd { margin: 0; font-weight: 600; }
.summary .amount dd { font-size: 1.375rem; }
.explain { background: #eef4fb; border-left: 0.25rem solid var(--accent, ${DEFAULT_ACCENT}); padding: 0.75rem; }
.terms { font-size: 0.875rem; }
.hotel-info {
  max-width: 36rem;
  margin: 0 auto;
  padding: 0 1rem 2rem;
  font-size: 0.875rem;
  color: #3d4149;
}
.hotel-info h2 { font-size: 1rem; margin: 0 0 0.25rem; color: #1b1b1f; }
.hotel-info address { font-style: normal; }
.hotel-info p { margin: 0 0 0.25rem; }
.contact { margin: 0 0 0.75rem; }
.notice {
  border: 2px solid #9b1c1c;
  background: #fdf2f2;
  color: #5c0f0f;
  border-radius: 0.375rem;
  padding: 0.75rem;
}
.test-mode {
  background: #7a2e00;
  color: #ffffff;
  font-weight: 700;
  text-align: center;
  border-radius: 0.375rem;
  padding: 0.5rem 0.75rem;
}
.field { margin-bottom: 1rem; }
label, legend { display: block; font-weight: 600; margin-bottom: 0.25rem; }
fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
legend { padding: 0; margin-bottom: 0.5rem; }
.expiry-row { display: flex; gap: 1rem; }
.expiry-row .field { flex: 1 1 0; min-width: 0; }
.expiry-row label { font-weight: 400; }
input {
  display: block;
  width: 100%;
  font: inherit;
  font-size: 1rem;
  padding: 0.625rem 0.75rem;
  color: #1b1b1f;
  background: #ffffff;
  border: 2px solid #5f6470;
  border-radius: 0.375rem;
  min-height: 2.75rem;
}
.hint { font-size: 0.875rem; color: #3d4149; margin: 0.25rem 0 0; }
button, .button {
  display: inline-block;
  width: 100%;
  font: inherit;
  font-weight: 700;
  text-align: center;
  text-decoration: none;
  padding: 0.75rem 1rem;
  min-height: 2.75rem;
  color: #ffffff;
  background: var(--accent, ${DEFAULT_ACCENT});
  border: 2px solid var(--accent, ${DEFAULT_ACCENT});
  border-radius: 0.375rem;
  cursor: pointer;
}
/* Darker on hover whatever the accent: a shade laid over it, contrast only grows. */
button:hover, .button:hover { box-shadow: inset 0 0 0 10rem rgba(0, 0, 0, 0.25); }
a { color: var(--accent, #0b4a8b); }
:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
input:focus-visible { outline: 3px solid #b45309; outline-offset: 1px; border-color: var(--accent, ${DEFAULT_ACCENT}); }
.card-form { margin-bottom: 1rem; }
.note { font-size: 0.875rem; color: #3d4149; }
.outcome-success h1 { color: #14532d; }
.outcome-problem h1 { color: #9b1c1c; }
section[lang] + section[lang] { margin-top: 1rem; }
@media (min-width: 40rem) {
  main { padding: 2rem 1rem; }
  .card { padding: 1.5rem; }
  button, .button { width: auto; }
}
`;
