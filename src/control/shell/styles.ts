/** Served from our origin: the CSP needs no 'unsafe-inline' for styles. */
export const CONTROL_STYLESHEET_PATH = '/control/assets/control.css';
export const CONTROL_SCRIPT_PATH = '/control/assets/control.js';

/**
 * The guest page's palette and type (navy banner, white cards, 7:1 text contrast, thick amber
 * focus ring), laid out for work: wide tables at 1280 px; on a phone (up to 40rem) each table row
 * becomes a card of its own, every cell under the label its column's heading gives it
 * (`data-label`), so nothing scrolls sideways and no column (an amount) is cut off; the
 * navigation folds behind one Menu button (a `<details>`, no script). Nothing is ever wider
 * than the screen.
 */
export const CONTROL_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 1rem; line-height: 1.5; color: #1b1b1f; background: #f3f4f6; }
.skip { position: absolute; left: -999px; top: 0; background: #ffffff; color: #0b4a8b; padding: 0.5rem; }
.skip:focus { left: 0.5rem; }
.site { background: #12355b; color: #ffffff; padding: 0.5rem 1rem; display: flex; flex-wrap: wrap;
  align-items: center; justify-content: space-between; gap: 0.5rem 1rem; }
.site .brand { font-weight: 700; font-size: 1.125rem; margin: 0; }
.site a, .site button.link { color: #ffffff; }
.site .who { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; font-size: 0.9375rem; }
.site form { margin: 0; }
.site .tenant-switch { display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; align-items: center; }
.site .tenant-switch select { max-width: 16rem; min-height: 2.25rem; }
.site .tenant-switch label { margin: 0; }
nav.main { background: #0b2440; padding: 0 1rem; }
nav.main ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0 0.25rem; }
nav.main a { display: inline-block; color: #ffffff; padding: 0.625rem 0.75rem; text-decoration: none; }
nav.main a[aria-current="page"] { background: #f3f4f6; color: #12355b; font-weight: 700; }
/* The folded navigation of a phone: the same items behind one button, shown below 40rem only. */
nav.main .nav-fold { display: none; }
nav.main .nav-fold summary { display: inline-block; color: #ffffff; font-weight: 700; padding: 0.625rem 0.75rem;
  cursor: pointer; min-height: 2.75rem; }
nav.main .nav-fold[open] summary { text-decoration: underline; }
nav.main .nav-fold ul { flex-direction: column; padding-bottom: 0.5rem; }
nav.main .nav-fold a { display: block; }
main { display: block; max-width: 80rem; margin: 0 auto; padding: 1rem; }
.card { background: #ffffff; border: 1px solid #c9ccd2; border-radius: 0.5rem; padding: 1rem; margin-bottom: 1rem; }
.narrow { max-width: 28rem; margin: 2rem auto; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 0.75rem; }
h2 { font-size: 1.25rem; line-height: 1.3; margin: 0 0 0.75rem; }
p { margin: 0 0 0.75rem; }
a { color: #0b4a8b; }
:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
label, legend { display: block; font-weight: 600; margin-bottom: 0.25rem; }
fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
.field { margin-bottom: 0.75rem; }
.field.check label { display: flex; gap: 0.5rem; align-items: center; font-weight: 600; }
input, select, textarea { font: inherit; font-size: 1rem; padding: 0.5rem 0.625rem; color: #1b1b1f; background: #ffffff;
  border: 2px solid #5f6470; border-radius: 0.375rem; min-height: 2.5rem; max-width: 100%; }
input[type="checkbox"] { min-height: 0; width: 1.25rem; height: 1.25rem; }
input[aria-invalid="true"] { border-color: #9b1c1c; }
.hint { font-size: 0.875rem; color: #3d4149; margin: 0.25rem 0 0; }
.error-text { font-size: 0.875rem; color: #9b1c1c; font-weight: 700; margin: 0.25rem 0 0; }
.problem { color: #9b1c1c; font-weight: 600; font-size: 0.9375rem; margin: 0.25rem 0 0; }
textarea[aria-invalid="true"] { border-color: #9b1c1c; }
fieldset > legend { font-size: 1.125rem; margin: 1rem 0 0.25rem; }
fieldset > .hint { margin-bottom: 0.75rem; }
.logo-preview { display: block; max-height: 4rem; max-width: 12rem; border: 1px solid #c9ccd2; padding: 0.25rem; background: #ffffff; }
button, .button { display: inline-block; font: inherit; font-weight: 700; text-align: center; text-decoration: none;
  padding: 0.5rem 1rem; min-height: 2.5rem; color: #ffffff; background: #12355b; border: 2px solid #12355b;
  border-radius: 0.375rem; cursor: pointer; }
button:hover, .button:hover { background: #0b2440; }
button.secondary, .button.secondary { background: #ffffff; color: #12355b; }
button.danger { background: #9b1c1c; border-color: #9b1c1c; }
button.link { background: none; border: 0; padding: 0; min-height: 0; font-weight: 400; text-decoration: underline; }
.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(11rem, 100%), 1fr)); gap: 0 1rem; align-items: end; }
.filters .wide { grid-column: span 2; }
.filters input, .filters select { width: 100%; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.9375rem; }
caption { text-align: left; font-weight: 700; padding-bottom: 0.5rem; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid #c9ccd2; vertical-align: top; }
th { background: #eef1f5; }
td.num, th.num { text-align: right; white-space: nowrap; }
.status { display: inline-block; padding: 0 0.5rem; border-radius: 1rem; border: 1px solid #5f6470; white-space: nowrap;
  font-size: 0.875rem; background: #ffffff; }
.status.CAPTURED, .status.ok, .status.succeeded, .status.active { border-color: #14532d; color: #14532d; }
.status.REFUSED, .status.ERROR, .status.failed, .status.refused, .status.revoked { border-color: #9b1c1c; color: #9b1c1c; }
.status.in_doubt, .status.AUTHORISED_TO_VALIDATE { border-color: #7a2e00; color: #7a2e00; }
.flash { border: 2px solid #14532d; background: #f0fdf4; color: #14532d; border-radius: 0.375rem; padding: 0.75rem;
  margin-bottom: 1rem; }
.flash.error { border-color: #9b1c1c; background: #fdf2f2; color: #5c0f0f; }
.flash.doubt { border-color: #7a2e00; background: #fff7ed; color: #5a2200; }
tr.incident td { background: #fdf2f2; }
.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(16rem, 100%), 1fr)); gap: 0.25rem 1.5rem; margin: 0; }
.summary div { display: flex; justify-content: space-between; gap: 1rem; border-bottom: 1px dotted #c9ccd2; }
.summary dt { color: #3d4149; }
.summary dd { margin: 0; font-weight: 600; text-align: right; overflow-wrap: anywhere; }
/* The facts a confirmation rests on: one under the other, each label above its value. */
.summary.facts { grid-template-columns: 1fr; margin-bottom: 0.75rem; }
.summary.facts div { display: block; padding: 0.25rem 0; }
.summary.facts dd { text-align: left; }
pre { background: #f3f4f6; border: 1px solid #c9ccd2; border-radius: 0.375rem; padding: 0.75rem; overflow-x: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1rem; width: 100%; }
.actions { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(16rem, 100%), 1fr)); gap: 1rem; }
.actions form { border: 1px solid #c9ccd2; border-radius: 0.375rem; padding: 0.75rem; margin: 0; }
.confirm { font-size: 1.125rem; }
.pager { display: flex; gap: 1rem; margin-top: 1rem; }
.qr { display: block; width: 12rem; height: 12rem; background: #ffffff; image-rendering: pixelated; margin-bottom: 0.75rem; }
.secret, .codes { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1.0625rem;
  overflow-wrap: anywhere; }
.codes { columns: 2 10rem; padding-left: 1.5rem; }
code, .key, td, dd { overflow-wrap: anywhere; }
/* A column of long text (a webhook URL) keeps a readable width; its table scrolls in its box. */
td.wide-text { min-width: 14rem; }
img { max-width: 100%; }
@media (max-width: 30rem) { .filters .wide { grid-column: auto; } main { padding: 0.75rem; } .narrow { margin: 1rem auto; } }
@media (max-width: 40rem) {
  nav.main .nav-wide { display: none; }
  nav.main .nav-fold { display: block; }
  /* Stacked rows: a card per row, each cell under its column's label; the headings are still read. */
  .table-wrap { overflow-x: visible; }
  .table-wrap table, .table-wrap tbody, .table-wrap tr, .table-wrap td, .table-wrap tbody th { display: block; width: 100%; }
  .table-wrap caption { display: block; }
  .table-wrap thead { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
    clip-path: inset(50%); white-space: nowrap; border: 0; }
  .table-wrap tr { border: 1px solid #c9ccd2; border-radius: 0.5rem; margin-bottom: 0.75rem; padding: 0.25rem 0.75rem;
    background: #ffffff; }
  .table-wrap tr.incident { border-color: #9b1c1c; }
  .table-wrap td, .table-wrap tbody th { border-bottom: 1px dotted #c9ccd2; padding: 0.375rem 0; background: none; }
  .table-wrap tr > :last-child { border-bottom: 0; }
  .table-wrap tr.incident td { background: none; }
  .table-wrap td.num, .table-wrap th.num { text-align: left; white-space: normal; }
  .table-wrap td.wide-text { min-width: 0; }
  /* The label is a column of its own: every line of a cell (a guest's e-mail under the name, a
     type under the reference) starts after it, never under it. The label floats in the cell's
     left padding and flow-root keeps the cell as tall as a label that wraps. */
  .table-wrap td[data-label], .table-wrap tbody th[data-label] { display: flow-root; padding-left: 8rem; }
  .table-wrap [data-label]::before { content: attr(data-label); float: left; width: 7.5rem; margin-left: -8rem;
    font-weight: 600; color: #3d4149; overflow-wrap: anywhere; }
  /* Beside the label column a long status ("Vorautorisiert, abzubuchen") wraps rather than spill. */
  .table-wrap .status { white-space: normal; }
  .table-wrap tbody th[data-label]::before { font-weight: 400; }
}
@media (min-width: 48rem) { main { padding: 1.5rem; } .card { padding: 1.25rem; } }
/* Filters that fold on a phone (a <details>, no script): its heading is the button that opens
   them. From 40rem up there is room: the content is always shown and the heading is a heading. */
.fold > summary { cursor: pointer; }
.fold > summary h2 { display: inline; }
@media (min-width: 40.0625rem) {
  .fold > summary { cursor: auto; list-style: none; pointer-events: none; }
  .fold > summary::-webkit-details-marker { display: none; }
  .fold::details-content { content-visibility: visible; display: block; }
}
`;

/**
 * The one script: progressive enhancement only. It fills the copy button and the "select all"
 * box; every action works without it.
 */
export const CONTROL_JS = `
document.addEventListener('click', function (e) {
  var t = e.target;
  if (t && t.matches && t.matches('[data-copy]')) {
    var field = document.getElementById(t.getAttribute('data-copy'));
    if (field && navigator.clipboard) { navigator.clipboard.writeText(field.value); t.textContent = t.getAttribute('data-copied') || t.textContent; }
  }
});
document.addEventListener('change', function (e) {
  var t = e.target;
  if (t && t.id === 'select-all') {
    document.querySelectorAll('input[name="ids"]').forEach(function (box) { box.checked = t.checked; });
  }
});
`;
