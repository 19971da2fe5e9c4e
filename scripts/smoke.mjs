#!/usr/bin/env node
// A smoke run of the service on whatever Node runs this script (CI runs it on Node 26,
// the whole suite on Node 24): start `payreq serve` on a fresh embedded database, create a
// DEPOSIT and an IMPRINT with the key the first start prints, pay both through the sandbox's
// card form as a browser would, run the daily hold job through the CLI, and check each status.
// Usage: node scripts/smoke.mjs   (prints one line per step, exits non-zero on the first failure)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'payreq.js');
const dataDir = mkdtempSync(path.join(tmpdir(), 'payreq-smoke-'));
const STEP_TIMEOUT_MS = 120_000;

const port = await new Promise((resolve, reject) => {
  const s = createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL: `pglite://${dataDir}`,
  PORT: String(port),
  HOST: '127.0.0.1',
  PUBLIC_BASE_URL: base,
  LOG_LEVEL: 'warn',
};

function step(text) {
  console.log(`smoke (node ${process.version}): ${text}`);
}

function fail(text) {
  throw new Error(`smoke: ${text}`);
}

const server = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
let output = '';
const listeners = new Set();
for (const stream of [server.stdout, server.stderr]) {
  stream.on('data', (chunk) => {
    output += chunk;
    for (const listener of listeners) listener();
  });
}

/** Resolves with the first match of `pattern` in what the service has printed so far. */
function waitFor(pattern, what) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = pattern.exec(output);
      if (!m) return;
      listeners.delete(check);
      clearTimeout(timer);
      resolve(m);
    };
    const timer = setTimeout(() => {
      listeners.delete(check);
      reject(new Error(`smoke: no ${what} within ${STEP_TIMEOUT_MS} ms:\n${output}`));
    }, STEP_TIMEOUT_MS);
    listeners.add(check);
    check();
  });
}

async function api(method, url, key, body) {
  const r = await fetch(`${base}${url}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await r.json();
  if (!r.ok) fail(`${method} ${url} answered ${r.status}: ${JSON.stringify(json)}`);
  return json;
}

/** What a guest does: open the link, fill the sandbox's card form, post it, land on the result. */
async function payAsGuest(paymentLink) {
  const page = await (await fetch(`${base}${paymentLink}`)).text();
  const form =
    /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page) ?? fail('no card form on the payment page');
  const fields = new URLSearchParams();
  for (const m of form[2].matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    fields.append(m[1], m[2].replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'"));
  }
  fields.append('card_number', '4242424242424242');
  fields.append('exp_month', '12');
  fields.append('exp_year', String(new Date().getUTCFullYear() + 2));
  fields.append('cvv', '123');
  const action = form[1].replaceAll('&amp;', '&');
  const r = await fetch(new URL(action, base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
  });
  if (!r.ok) fail(`the card form answered ${r.status}`);
}

async function statusOf(uuid, key, want) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const { status } = await api('GET', `/api/payment-requests/${uuid}/`, key);
    if (status === want) return;
    if (Date.now() > deadline) fail(`${uuid} is ${status}, not ${want}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isoDate(d) {
  return d.toISOString().slice(0, 10);
}

let ok = false;
try {
  const key = (await waitFor(/API key:\s+(\S+)/, 'demo API key'))[1];
  await waitFor(/payreq listening/, '"payreq listening"');
  step(`started on ${base}`);

  const guest = { guest_email: 'jeanne.martin@example.com', guest_first_name: 'Jeanne', guest_last_name: 'Martin' };
  const checkin = new Date(Date.now() + 5 * 86_400_000);
  const deposit = await api('POST', '/api/payment-requests/', key, {
    ...guest,
    request_type: 'DEPOSIT',
    amount: 120.5,
    currency: 'EUR',
    language: 'en',
    reservation_ref: 'SMOKE-1',
  });
  const imprint = await api('POST', '/api/payment-requests/', key, {
    ...guest,
    request_type: 'IMPRINT',
    amount: 300,
    currency: 'EUR',
    language: 'fr',
    reservation_ref: 'SMOKE-2',
    reservation_data: { checkin: isoDate(checkin) },
  });
  step(`created ${deposit.reference} and ${imprint.reference}`);

  await payAsGuest(deposit.payment_link);
  await statusOf(deposit.uuid, key, 'CAPTURED');
  await payAsGuest(imprint.payment_link);
  await statusOf(imprint.uuid, key, 'AUTHORISED');
  step('paid: the deposit is CAPTURED, the imprint AUTHORISED');

  const holdDay = isoDate(new Date(checkin.getTime() - 2 * 86_400_000));
  const job = spawnSync(
    process.execPath,
    [bin, 'job', 'run', 'create_deferred_payments', '--date', holdDay, '--json'],
    {
      env,
      encoding: 'utf8',
      timeout: STEP_TIMEOUT_MS,
    },
  );
  if (job.status !== 0) fail(`job run exited ${job.status}: ${job.stderr}`);
  await statusOf(imprint.uuid, key, 'AUTHORISED_TO_VALIDATE');
  step(`the daily job on ${holdDay} held the imprint: AUTHORISED_TO_VALIDATE`);
  ok = true;
} finally {
  server.kill('SIGTERM');
  const { code, signal } = await exited;
  rmSync(dataDir, { recursive: true, force: true });
  if (ok && code !== 0) {
    console.error(`smoke: serve stopped with ${signal ?? code}`);
    process.exitCode = 1;
  }
}
step(ok ? 'passed' : 'failed');
if (!ok) process.exitCode = 1;
