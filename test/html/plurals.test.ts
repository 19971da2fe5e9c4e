import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { BULK_MESSAGES } from '../../src/control/bulk/words.ts';
import { PAYOUT_MESSAGES } from '../../src/control/payouts/words.ts';
import { GUARANTEE_CONTROL_MESSAGES } from '../../src/control/requests/guarantee-words.ts';
import { ROLE_MESSAGES } from '../../src/control/team/words.ts';
import { DAY_PLAN_WORDS } from '../../src/day-plan/day-plan-words.ts';
import { plural } from '../../src/i18n/index.ts';
import { CATALOGUES } from './catalogues.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** "(s)", "(en)", "(n)", "(e)", "(x)" glued to a word: a plural left to the reader. */
const PARENTHESISED_PLURAL = /\p{L}\((?:s|e|en|n|es|x|nen)\)/u;

/** Every text a catalogue gives, its functions called with `n` for each argument. */
function textsWith(value: unknown, n: number, at: string, out: [string, string][]): void {
  if (typeof value === 'string') out.push([at, value]);
  else if (typeof value === 'function') {
    let produced: unknown;
    try {
      produced = value(...Array.from({ length: value.length }, () => n));
    } catch {
      return; // an argument that must be richer than a number: its page's tests read it
    }
    textsWith(produced, n, `${at}()`, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) textsWith(v, n, `${at}.${k}`, out);
  }
}

describe('plurals by the language’s rules (Intl.PluralRules), one mechanism', () => {
  test('0, 1 and 2 in English, French and German', () => {
    const requests = { en: ['request', 'requests'], fr: ['demande', 'demandes'], de: ['Anfrage', 'Anfragen'] };
    const said = Object.fromEntries(
      Object.entries(requests).map(([lang, [one, other]]) => [
        lang,
        [0, 1, 2].map((n) => plural(lang, n, { one: `# ${one}`, other: `# ${other}` })),
      ]),
    );
    assert.deepEqual(said, {
      en: ['0 requests', '1 request', '2 requests'],
      // French counts 0 as singular ("0 demande"); English and German do not.
      fr: ['0 demande', '1 demande', '2 demandes'],
      de: ['0 Anfragen', '1 Anfrage', '2 Anfragen'],
    });
  });

  test('an explicit zero form when the language’s own does not read well; numbers as the language writes them', () => {
    const lines = { zero: 'aucune ligne', one: '# ligne', other: '# lignes' };
    assert.deepEqual(
      [0, 1, 2].map((n) => plural('fr', n, lines)),
      ['aucune ligne', '1 ligne', '2 lignes'],
    );
    assert.equal(plural('fr', 1234, lines), '1\u202f234 lignes');
    assert.equal(plural('de', 1234, { one: '# Zeile', other: '# Zeilen' }), '1.234 Zeilen');
    assert.equal(plural('en', 1234, { one: '# line', other: '# lines' }), '1,234 lines');
    // French round millions are CLDR's "many": `other` stands in when no `many` is given.
    assert.equal(plural('fr', 1_000_000, lines), '1\u202f000\u202f000 lignes');
  });

  test('the back office’s and the digest’s counted sentences, 0, 1 and 2, in each language', () => {
    const at = (f: (n: number) => string) => [0, 1, 2].map(f);
    assert.deepEqual(at(DAY_PLAN_WORDS.en.created), ['0 requests made', '1 request made', '2 requests made']);
    assert.deepEqual(at(DAY_PLAN_WORDS.fr.created), ['0 demande créée', '1 demande créée', '2 demandes créées']);
    assert.deepEqual(at(DAY_PLAN_WORDS.de.created), [
      '0 Anfragen erstellt',
      '1 Anfrage erstellt',
      '2 Anfragen erstellt',
    ]);
    assert.deepEqual(
      at((n) => PAYOUT_MESSAGES.fr.totals(n, n)),
      ['0 ligne, 0 rapprochée.', '1 ligne, 1 rapprochée.', '2 lignes, 2 rapprochées.'],
    );
    assert.deepEqual(
      at((n) => PAYOUT_MESSAGES.de.totals(n, n)),
      ['0 Zeilen, 0 zugeordnet.', '1 Zeile, 1 zugeordnet.', '2 Zeilen, 2 zugeordnet.'],
    );
    assert.deepEqual(
      at((n) => PAYOUT_MESSAGES.en.totals(n, n)),
      ['0 lines, 0 matched.', '1 line, 1 matched.', '2 lines, 2 matched.'],
    );
    assert.match(BULK_MESSAGES.fr.bulkConfirmIntro(1), /^1 demande sera traitée,/);
    assert.match(BULK_MESSAGES.de.bulkConfirmIntro(2), /^2 Anfragen werden bearbeitet,/);
    assert.match(BULK_MESSAGES.en.bulkConfirmIntro(0), /^0 requests will be acted on,/);
    assert.match(ROLE_MESSAGES.de.waitingInvitations(1), /^Ein Hotel lädt Sie ein/);
    assert.match(ROLE_MESSAGES.fr.waitingInvitations(2), /^2 hôtels vous invitent/);
    assert.match(GUARANTEE_CONTROL_MESSAGES.de.recovered(1, 'X'), /^Die Bank hat 1 Garantie dieser/);
    assert.match(GUARANTEE_CONTROL_MESSAGES.fr.recovered(2, 'X'), /^La banque a refusé 2 garanties de/);
    assert.match(GUARANTEE_CONTROL_MESSAGES.en.guestAsked(1), /\(once so far\)/);
    assert.match(GUARANTEE_CONTROL_MESSAGES.en.guestAsked(2), /\(2 times so far\)/);
  });

  test('no catalogue leaves a plural to the reader: no "(s)", "(en)", "(n)", for 0, 1 or 2', () => {
    const found: string[] = [];
    for (const [name, catalogue] of Object.entries(CATALOGUES)) {
      for (const n of [0, 1, 2]) {
        const texts: [string, string][] = [];
        textsWith(catalogue, n, name, texts);
        for (const [where, text] of texts) if (PARENTHESISED_PLURAL.test(text)) found.push(`${where} (${n}): ${text}`);
      }
    }
    assert.deepEqual([...new Set(found)], []);
  });

  test('words files count through plural(), not a test of their own against 1', () => {
    const files = globSync('src/**/*{words,messages}.ts', { cwd: root });
    assert.ok(files.length > 15, files.join(', '));
    const own = files.filter((f) =>
      /\b(?:n|count|\w+s)\s*(?:===|<=|==)\s*1\s*\?/.test(readFileSync(path.join(root, f), 'utf8')),
    );
    assert.deepEqual(own, []);
  });
});
