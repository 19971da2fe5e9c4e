import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { RequestType } from '../../src/domain/index.ts';
import type { GuestCheckout, PaymentProvider, ProviderNotification } from '../../src/providers/index.ts';
import { lyraProvider, verifyBrowserReturn } from '../../src/providers/lyra/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { DEMO_SHOP, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';

const skip = skipWithoutChromium;

/**
 * A merchant page as the guest page will embed Lyra's form: the script with its kr-*
 * attributes, and the div holding the form token. It stands in for payreq's origin: it
 * records every request it gets, to show the card never reaches it.
 */
function merchantPage(form: GuestCheckout): string {
  assert.equal(form.kind, 'embedded-form');
  if (form.kind !== 'embedded-form') return '';
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Pay</title>
<script src="${form.scriptUrl}" kr-public-key="${form.publicKey}" kr-post-url-success="${form.successUrl}"
 kr-language="${form.languageTag}"></script>
<div class="kr-embedded" kr-form-token="${form.formToken}"></div></html>`;
}

describe('Lyra card form in a real browser (fake Lyra)', { skip }, () => {
  let fake: LyraFake;
  let lyra: PaymentProvider;
  let merchant: Server;
  let merchantUrl = '';
  let browser: Browser;
  const pages = new Map<string, string>();
  const seen: string[] = [];
  const notifications: ProviderNotification[] = [];
  const returns: string[] = [];

  before(async () => {
    fake = await startLyraFake();
    merchant = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        if (req.method === 'GET' && pages.has(req.url ?? '')) {
          return res.writeHead(200, { 'content-type': 'text/html' }).end(pages.get(req.url ?? ''));
        }
        if (req.method === 'POST' && req.url === '/ipn/lyra/') {
          notifications.push(lyra.parseNotification(body, req.headers));
          return res.writeHead(200).end();
        }
        if (req.method === 'POST' && req.url?.startsWith('/result/')) {
          returns.push(body);
          return res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<!doctype html><title>Result</title><p>Done</p>');
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
    lyra = lyraProvider({
      shopId: DEMO_SHOP.shopId,
      apiUrl: fake.apiUrl,
      staticUrl: fake.staticUrl,
      mode: 'TEST',
      password: DEMO_SHOP.password,
      publicKey: DEMO_SHOP.publicKey,
      hmacKey: DEMO_SHOP.hmacKey,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => merchant?.close(() => resolve()));
    await fake?.close();
  });

  const cases: { type: RequestType; amountCents: number; outcome: ProviderNotification['outcome'] }[] = [
    { type: 'IMPRINT', amountCents: 0, outcome: 'registered' },
    { type: 'DEPOSIT', amountCents: 15000, outcome: 'paid' },
  ];
  for (const c of cases) {
    test(`${c.type}: the guest types the card on Lyra's form; notified, then returned signed`, async () => {
      const orderId = randomUUID();
      const form = await lyra.startGuestPayment({
        paymentRequestId: orderId,
        reference: 'RES-1',
        requestType: c.type,
        amountCents: c.amountCents,
        currency: 'EUR',
        language: 'en',
        guestEmail: 'guest@example.test',
        merchantName: 'Hotel Test',
        returnUrl: `${merchantUrl}/result/${orderId}`,
        notifyUrl: `${merchantUrl}/ipn/lyra/`,
      });
      pages.set(`/pay/${orderId}`, merchantPage(form));
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${merchantUrl}/pay/${orderId}`);
        const card = page.frameLocator('iframe[name="kr-fake-card-form"]');
        await card.getByLabel('Card number').fill(LYRA_CARDS.accepted);
        await card.getByRole('button', { name: 'Pay' }).click();
        await page.waitForURL(`${merchantUrl}/result/${orderId}`);
        await page.getByText('Done').waitFor();
      } finally {
        await context.close();
      }

      const notified = notifications.find((n) => n.paymentRequestId === orderId);
      assert.equal(notified?.outcome, c.outcome);
      assert.equal(notified?.amountCents, c.amountCents);
      if (c.type === 'IMPRINT') assert.match(notified?.cardToken ?? '', /^[0-9a-f]{32}$/);
      // The notification came before the browser's return, as Lyra does it.
      assert.equal(fake.deliveries.at(-1)?.delivered, true);

      const back = returns.find((r) => r.includes(orderId));
      assert.ok(back, 'the browser came back with the signed answer');
      const returned = verifyBrowserReturn(back, DEMO_SHOP.hmacKey);
      assert.equal(returned.transactionId, notified?.transactionId);

      // Every request the merchant's origin got: none carries the card number.
      assert.ok(seen.length >= 3);
      assert.equal(
        seen.some((s) => s.includes(LYRA_CARDS.accepted)),
        false,
      );
    });
  }
});
