import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

// The back office runs the API's commands: while a capture is in doubt, a release clicked by
// staff is refused naming the capture (nothing was sent), never shown as "in doubt" itself;
// the capture's own confirmation, posted again, is its retry and stays in doubt.
describe(`back office actions while another is in doubt (${ENGINE})`, () => {
  let t: TestApp;
  let c: ControlClient;
  const provider = countingProvider();
  const late = gate();
  before(async () => {
    t = await startTestApp({ provider: provider.provider, env: { PROVIDER_TIMEOUT_MS: '300' } });
    await createUser(t, 'nightdesk', t.tenant.tenantId);
    c = await new ControlClient(t).signedIn('nightdesk');
  });
  after(async () => {
    late.open();
    await t.close();
  });

  /** The confirmation page of `action`, then its form posted; the flash of the page it leads to. */
  async function confirmed(id: string, action: string) {
    const confirm = await c.get(`/control/requests/${id}/confirm?action=${action}&amount=`);
    assert.equal(confirm.statusCode, 200, confirm.body);
    const fields: Record<string, string> = {};
    for (const m of confirm.body.matchAll(/<input type="hidden" name="(amount|nonce)" value="([^"]*)">/g)) {
      fields[m[1] as string] = m[2] as string;
    }
    return { fields, flash: await post(id, action, fields) };
  }
  async function post(id: string, action: string, fields: Record<string, string>) {
    const r = await c.post(`/control/requests/${id}/${action}`, fields);
    assert.equal(r.statusCode, 303, r.body);
    const page = await c.get(String(r.headers.location));
    return /<p class="flash[^"]*" role="status">([^<]*)<\/p>/.exec(page.body)?.[1] ?? '';
  }

  test('a release while a capture is in doubt is refused, naming the capture; the capture re-posted stays in doubt', async () => {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount: 80 });
    await arrangeStatus(t.db, r.uuid, 'AUTHORISED_TO_VALIDATE');
    provider.holdUntil(late.opened);
    let capture: Awaited<ReturnType<typeof confirmed>>;
    try {
      capture = await confirmed(r.uuid, 'capture');
    } finally {
      provider.holdUntil(undefined);
    }
    assert.match(capture.flash, /^In doubt/);

    const release = await confirmed(r.uuid, 'release');
    assert.match(release.flash, /^Refused: A capture on this payment request is in doubt/);
    const [audit] = await t.repos.audit.list({ action: 'release', limit: 1 });
    assert.equal(audit?.outcome, 'refused');
    assert.equal(provider.count('release', r.uuid), 0);

    // The capture's own confirmation again (a reload): the same operation, still in doubt.
    assert.match(await post(r.uuid, 'capture', capture.fields), /^In doubt/);
    assert.equal(provider.count('capture', r.uuid), 1);
  });
});
