import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_MESSAGES } from '../../src/control/admin/words.ts';
import { REQUESTS_MESSAGES } from '../../src/control/requests/words.ts';
import { CONTROL_LANGUAGES } from '../../src/control/shell/language.ts';
import { CONTROL_MESSAGES } from '../../src/control/shell/words.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/**
 * Words of the code or of English that staff reading French or German must never meet: money
 * operations and their states, sources, reservation keys, job and audit codes.
 */
const KNOWN_TERMS = [
  'capture',
  'verification',
  'hold',
  'succeeded',
  'requested',
  'in_doubt',
  'api',
  'guest',
  'ipn',
  'job',
  'admin',
  'checkin',
  'checkout',
  'room_type',
  'Cancelled',
  'Tenant',
  'create_deferred_payments',
  'logo_changed',
  'sign_in',
  'request_created',
];

/** The text a reader sees: tags, attributes and <code> (commands for operators) removed. */
function visibleText(body: string): string {
  return body
    .replace(/<(script|style|code)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z#0-9]+;/g, ' ');
}

describe(`French and German are complete (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let id = '';
  let releasedRef = '';
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'root-words');
    const r = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 100,
      guest_first_name: 'Zoé',
      guest_last_name: 'Durand',
      guest_email: 'zoe.durand@example.com',
      reservation_data: { checkin: '2026-12-24', checkout: '2026-12-27', room_type: 'Double' },
    });
    id = r.uuid;
    await arrangeStatus(t.db, id, 'AUTHORISED_TO_VALIDATE');
    assert.equal(
      (await t.call({ method: 'POST', url: `/api/payment-requests/${id}/capture/`, payload: { amount: 60 } }))
        .statusCode,
      200,
    );
    assert.equal(
      (await t.call({ method: 'POST', url: `/api/payment-requests/${id}/refund/`, payload: { amount: 10 } }))
        .statusCode,
      200,
    );
    const released = await createRequest(t, { request_type: 'IMPRINT', amount: 50 });
    await arrangeStatus(t.db, released.uuid, 'AUTHORISED_TO_VALIDATE');
    // As the daily job leaves a hold it placed: with its end.
    await t.db.query(`UPDATE payment_requests SET hold_expires_at = now() + interval '6 days' WHERE id = $1`, [
      released.uuid,
    ]);
    releasedRef = released.reference;
    await t.call({ method: 'POST', url: `/api/payment-requests/${released.uuid}/release/` });
  });
  after(() => t.close());

  test('every word map has the same keys in every language', () => {
    const en = CONTROL_MESSAGES.en;
    for (const language of CONTROL_LANGUAGES) {
      const m = CONTROL_MESSAGES[language];
      for (const map of ['statuses', 'types', 'ledgerKinds'] as const) {
        assert.deepEqual(Object.keys(m[map]).sort(), Object.keys(en[map]).sort(), `${language}.${map}`);
      }
      // The requests pages' own maps, in their room's words.
      for (const map of ['ledgerStates', 'sources', 'reservationKeys'] as const) {
        const [mine, english] = [REQUESTS_MESSAGES[language][map], REQUESTS_MESSAGES.en[map]];
        assert.deepEqual(Object.keys(mine).sort(), Object.keys(english).sort(), `${language}.${map}`);
      }
    }
  });

  test('the admin room’s word maps (jobs, audit) have the same keys in every language', () => {
    const en = ADMIN_MESSAGES.en;
    for (const language of CONTROL_LANGUAGES) {
      const w = ADMIN_MESSAGES[language];
      for (const map of ['jobNames', 'auditActions', 'auditOutcomes', 'auditDetail'] as const) {
        assert.deepEqual(Object.keys(w[map]).sort(), Object.keys(en[map]).sort(), `${language}.${map}`);
      }
    }
  });

  for (const language of CONTROL_LANGUAGES) {
    test(`the list calls a freed hold released, as its detail does, in ${language}`, async () => {
      const c = await new ControlClient(t, '10.5.0.3').signedIn('root-words');
      await c.get(`/control/language/${language}?back=/control/requests`);
      const row = (await c.get('/control/requests')).body.split('<tr>').find((r) => r.includes(`>${releasedRef}</a>`));
      assert.ok(row, 'the released request is listed');
      assert.match(row, new RegExp(`class="status CANCELLED">${REQUESTS_MESSAGES[language].released}<`));
    });
  }

  for (const language of ['fr', 'de'] as const) {
    test(`no English or code word on the pages in ${language}`, async () => {
      const c = await new ControlClient(t, `10.5.0.${language === 'fr' ? 1 : 2}`).signedIn('root-words');
      await c.get(`/control/language/${language}?back=/control/requests`);
      const seen: string[] = [];
      for (const url of [
        '/control/requests',
        `/control/requests/${id}`,
        '/control/audit',
        '/control/schedules',
        '/control/requests/new',
        '/control/today',
        '/control/settings',
      ]) {
        const r = await c.get(url);
        assert.equal(r.statusCode, 200, url);
        const text = visibleText(r.body);
        for (const term of KNOWN_TERMS) {
          if (new RegExp(`(^|[^\\p{L}_])${term}($|[^\\p{L}_])`, 'u').test(text)) seen.push(`${url}: ${term}`);
        }
      }
      assert.deepEqual(seen, []);
    });
  }
});
