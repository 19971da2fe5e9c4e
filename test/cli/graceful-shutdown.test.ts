import assert from 'node:assert/strict';
import { connect } from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type Database, migrate, openDatabase, repositories } from '../../src/db/index.ts';
import { type CreatePaymentRequestInput, validateCreate } from '../../src/domain/index.ts';
import { IPN_SIGNATURE_HEADER, ipnKey, signIpn } from '../../src/providers/sandbox/ipn-signature.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';
import { createBody } from '../helpers/test-app.ts';
import { cliEnv, freePort, killAll, pgliteDataDir, ServeProcess, scratchDir } from './payreq-process.ts';

/** Resolves once the process's output matches; rejects if it exits first. */
function output(serve: ServeProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(serve.stdout)) return;
      serve.child.stdout?.off('data', check);
      resolve();
    };
    serve.child.stdout?.on('data', check);
    serve.exited.then((code) =>
      reject(new Error(`exited (${code}) before ${pattern}:\n${serve.stdout}\n${serve.stderr}`)),
    );
    check();
  });
}

/** A tenant and one payment request, written before the service starts; returns the request's id. */
async function seed(db: Database): Promise<string> {
  await migrate(db);
  const repos = repositories(db);
  const tenant = await repos.tenants.create({ name: 'Hôtel Graceful' });
  const created = await repos.paymentRequests.create(
    tenant.id,
    validateCreate(createBody() as unknown as CreatePaymentRequestInput),
    {
      year: 2026,
      linkLifetimeDays: 30,
      actor: { source: 'api', actor: 'test' },
      emailLink: false,
    },
  );
  assert.ok(created);
  return created.id;
}

const statusOf = async (db: Database, id: string) =>
  (await db.query<{ status: string }>('SELECT status FROM payment_requests WHERE id = $1', [id])).rows[0]?.status;

describe(`SIGTERM: a graceful stop finishes the requests in flight (${ENGINE})`, { timeout: 240_000 }, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  after(async () => {
    killAll();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('a notification half received when SIGTERM arrives is still answered and applied; the exit is clean', async () => {
    const dir = pgliteDataDir(path.join(scratch.dir, 'data'));
    let databaseUrl = `pglite://${dir}`;
    let orderId: string;
    if (ENGINE === 'postgres') {
      testDb = await createTestDatabase();
      databaseUrl = testDb.url;
      orderId = await seed(testDb.db);
    } else {
      const db = await openDatabase({ engine: 'pglite', dir }, 'command');
      orderId = await seed(db);
      await db.close();
    }
    const port = await freePort();
    const env = cliEnv({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      SECRET_KEY: PRODUCTION_SECRET_KEY,
      // The request's arrival is logged at debug (one line per request at info, when answered).
      LOG_LEVEL: 'debug',
    });
    // A loaded machine can take a while to start a process.
    const serve = await ServeProcess.start(env, scratch.dir, 120_000);

    // The provider reports a technical failure: NOT_INITIATED becomes ERROR.
    const eventId = `graceful-${port}`;
    const body = JSON.stringify({
      event_id: eventId,
      order_id: orderId,
      outcome: 'error',
      detail: 'card reader on fire',
      created_at: new Date().toISOString(),
    });
    const head = [
      'POST /ipn/sandbox/ HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      `${IPN_SIGNATURE_HEADER}: ${signIpn(ipnKey(PRODUCTION_SECRET_KEY), body)}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      '',
    ].join('\r\n');
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    // The whole answer: its headers, then a JSON body. (Not a half-close: an HTTP server that
    // sees the client end its side drops the request, stopping or not.)
    const answered = new Promise<void>((resolve, reject) => {
      socket.on('data', (d: string) => {
        answer += d;
        if (/\r\n\r\n\{.*\}$/s.test(answer)) resolve();
      });
      socket.on('close', () => reject(new Error(`closed before a full answer: ${answer}\n${serve.stdout}`)));
    });
    socket.write(head + body.slice(0, 20));
    // The service has the request (its log says so) but not all of its body.
    await output(serve, /"url":"\/ipn\/sandbox\/".*"msg":"incoming request"/);

    serve.child.kill('SIGTERM');
    await output(serve, /"msg":"shutting down"/);
    socket.write(body.slice(20));
    await answered;
    socket.destroy();
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    assert.match(answer, /"status":"applied"/);
    assert.equal(await serve.exited, 0, serve.stderr);

    // Applied and committed before the database closed.
    const db =
      ENGINE === 'postgres' ? (testDb as TestDatabase).db : await openDatabase({ engine: 'pglite', dir }, 'command');
    try {
      assert.equal(await statusOf(db, orderId), 'ERROR');
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM provider_events WHERE event_id = $1', [
        eventId,
      ]);
      assert.equal(r.rows[0]?.n, 1);
    } finally {
      if (ENGINE !== 'postgres') await db.close();
    }
  });
});
