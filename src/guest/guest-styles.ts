/** Where the stylesheet is served: a file of our own origin, so the CSP needs no 'unsafe-inline'. */
export const STYLESHEET_PATH = '/payment/assets/guest.css';

/**
 * Mobile first: one column, 16px inputs (no zoom on focus in mobile browsers), a wider card
 * only from 40rem. Colours keep at least 7:1 contrast for text and 4.5:1 for borders of
 * controls; focus is a thick outline that never depends on colour alone.
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
  background: #12355b;
  color: #ffffff;
  padding: 0.75rem 1rem;
}
.site p { margin: 0; }
.site .hotel { font-weight: 700; font-size: 1.125rem; }
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
.explain { background: #eef4fb; border-left: 0.25rem solid #12355b; padding: 0.75rem; }
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
  background: #12355b;
  border: 2px solid #12355b;
  border-radius: 0.375rem;
  cursor: pointer;
}
button:hover, .button:hover { background: #0b2440; }
a { color: #0b4a8b; }
:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
input:focus-visible { outline: 3px solid #b45309; outline-offset: 1px; border-color: #12355b; }
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
