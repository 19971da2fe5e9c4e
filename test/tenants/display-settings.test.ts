import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  accentContrastProblem,
  checkLogo,
  contrastRatio,
  MAX_LOGO_BYTES,
  normaliseHexColour,
  parseSettings,
  SETTING_FIELDS,
  sniffLogoType,
} from '../../src/tenants/index.ts';
import { JPEG_START, makePng, oversizedPng, SVG_LOGO, WEBP_START } from '../helpers/images.ts';

describe('WCAG contrast of the accent colour (pure)', () => {
  test('the reference ratios: black on white 21, same colour 1, #767676 on white just 4.54', () => {
    assert.equal(contrastRatio('#000000', '#ffffff'), 21);
    assert.equal(contrastRatio('#ffffff', '#000000'), 21, 'order does not matter');
    assert.equal(contrastRatio('#12355b', '#12355b'), 1);
    assert.equal(Math.round(contrastRatio('#767676', '#ffffff') * 100) / 100, 4.54);
    assert.equal(Math.round(contrastRatio('#777777', '#ffffff') * 100) / 100, 4.48);
  });

  test('short and upper-case forms are one colour', () => {
    assert.equal(normaliseHexColour('#ABC'), '#aabbcc');
    assert.equal(normaliseHexColour('1F4E79'), '#1f4e79');
    for (const bad of ['#12345', 'blue', '#gggggg', 'rgb(0,0,0)', '']) assert.equal(normaliseHexColour(bad), undefined);
  });

  test('a dark accent passes; one too light for white text or for the grey page is refused, with the ratio', () => {
    assert.equal(accentContrastProblem('#12355b'), undefined);
    assert.equal(accentContrastProblem('#1f4e79'), undefined);
    // #767676 reaches 4.54 with white but only about 4.1 with the page's #f3f4f6.
    assert.match(
      accentContrastProblem('#767676') ?? '',
      /contrast of 4\.\d\d:1 with the page background #f3f4f6; at least 4\.5:1/,
    );
    assert.match(accentContrastProblem('#ffcc00') ?? '', /contrast of 1\.\d\d:1/);
    assert.match(accentContrastProblem('#fafafa') ?? '', /with white text/);
  });
});

describe('display settings parse like every other setting (pure)', () => {
  const parse = (raw: Record<string, string>) => parseSettings(raw);

  test('good values are normalised', () => {
    const { patch, issues } = parse({
      address: '  12 rue du Lac \\n\n 74000 Annecy  ',
      phone: '+33  4 50 00 00 00',
      contact_email: 'desk@lac.example',
      terms_url: 'https://lac.example/conditions',
      accent_color: '#1F4E79',
    });
    assert.deepEqual(issues, []);
    assert.deepEqual(patch, {
      address: '12 rue du Lac\n74000 Annecy',
      phone: '+33 4 50 00 00 00',
      contact_email: 'desk@lac.example',
      terms_url: 'https://lac.example/conditions',
      accent_color: '#1f4e79',
    });
  });

  test('empty clears every one of them', () => {
    const { patch } = parse({ address: '', phone: ' ', contact_email: '', terms_url: '', accent_color: '' });
    assert.deepEqual(patch, { address: null, phone: null, contact_email: null, terms_url: null, accent_color: null });
  });

  test('bad values are each refused with what is wrong', () => {
    const { patch, issues } = parse({
      address: 'x'.repeat(301),
      phone: 'call us',
      contact_email: 'desk@',
      terms_url: 'http://lac.example/conditions',
      accent_color: '#ffcc00',
    });
    assert.deepEqual(patch, {});
    const by = Object.fromEntries(issues.map((i) => [i.field, i.message]));
    assert.match(by.address ?? '', /at most 300 characters/);
    assert.match(by.phone ?? '', /phone number/);
    assert.match(by.contact_email ?? '', /e-mail address/);
    assert.match(by.terms_url ?? '', /https:\/\//);
    assert.match(by.accent_color ?? '', /#ffcc00 has a contrast of 1\.\d\d:1 .* at least 4\.5:1/);
  });

  test('a terms link with credentials, javascript: or no host is refused; control characters too', () => {
    for (const url of ['https://user:pw@lac.example/', 'javascript:alert(1)', 'https://', 'lac.example/terms']) {
      assert.equal(parse({ terms_url: url }).issues.length, 1, url);
    }
    assert.equal(parse({ phone: '123' }).issues.length, 1, 'too few digits');
    assert.equal(parse({ address: 'Rue\u0007 du Lac' }).issues.length, 1);
    assert.equal(parse({ name: 'Two\nlines' }).issues.length, 1, 'a name is one line');
  });

  test('every display setting is in the one table, marked for the guest page', () => {
    const shown = SETTING_FIELDS.filter((f) => f.guestPage).map((f) => f.name);
    assert.deepEqual(shown, ['address', 'phone', 'contact_email', 'terms_url', 'accent_color']);
  });
});

describe('logo check by magic bytes (pure)', () => {
  test('PNG, JPEG and WebP by their first bytes, whatever they are called', () => {
    assert.equal(sniffLogoType(makePng(4, 2)), 'image/png');
    assert.equal(sniffLogoType(JPEG_START), 'image/jpeg');
    assert.equal(sniffLogoType(WEBP_START), 'image/webp');
    const ok = checkLogo(makePng(4, 2));
    assert.ok('hash' in ok && /^[0-9a-f]{64}$/.test(ok.hash) && ok.type === 'image/png');
  });

  test('SVG, other files, empty and oversized files are refused with the reason', () => {
    assert.match((checkLogo(SVG_LOGO) as { problem: string }).problem, /SVG is not accepted/);
    assert.match((checkLogo(Buffer.from('GIF89a....')) as { problem: string }).problem, /not a PNG, JPEG or WebP/);
    assert.match((checkLogo(Buffer.from('<html><svg></svg>')) as { problem: string }).problem, /SVG/);
    assert.match((checkLogo(Buffer.alloc(0)) as { problem: string }).problem, /empty/);
    assert.ok('hash' in checkLogo(oversizedPng(MAX_LOGO_BYTES)), 'exactly the limit passes');
    assert.match(
      (checkLogo(oversizedPng(MAX_LOGO_BYTES + 1)) as { problem: string }).problem,
      /the file is larger than 200 kB, the most a logo may be/,
    );
  });
});
