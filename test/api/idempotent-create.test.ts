import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import {
  CREATE_MANY_SQL,
  CREATE_SQL,
  createParams,
  type Database,
  type Queryable,
  type Repositories,
  repositories,
} from '../../src/db/index.ts';
import { errors, referenceSequenceName } from '../../src/domain/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { createBody, newKey, newTenant, type TenantWithKey } from '../helpers/test-app.ts';

/**
 * The create with an Idempotency-Key is one statement (CREATE_SQL stores the key with the
 * request): what that must keep of withIdempotency's guarantees, against a real database. The
 * app runs on a Database that records every statement it is asked to run.
 */

const URL_ = '/api/payment-requests/';
/** The connections the app's PostgreSQL pool opens (openPostgres' default). */
/** Create statements that can wait at once: the create's groups under way at a time. */
const MEETING = 2;

/** The real database, recording the text of each statement run through it (transactions too). */
function recording(db: Database): { db: Database; statements: string[] } {
  const statements: string[] = [];
  const tx = (q: Queryable): Queryable => ({
    query<T>(sql: string, params?: readonly unknown[]) {
      statements.push(sql);
      return q.query<T>(sql, params);
    },
  });
  return {
    statements,
    db: {
      engine: db.engine,
      query<T>(sql: string, params?: readonly unknown[]) {
        statements.push(sql);
        return db.query<T>(sql, params);
      },
      transaction(fn) {
        statements.push('BEGIN');
        return db.transaction((q) => fn(tx(q)));
      },
      close: () => db.close(),
    },
  };
}

describe(`Idempotency-Key on create, one statement (${ENGINE})`, () => {
  let testDb: TestDatabase;
  let app: FastifyInstance;
  let repos: Repositories;
  let statements: string[];
  let tenant: TenantWithKey;
  const answers: LightMyRequestResponse[] = [];

  before(async () => {
    testDb = await createTestDatabase();
    const rec = recording(testDb.db);
    statements = rec.statements;
    // Keys stay cached for the whole file, so that a request's statements are its own work.
    // WORKERS=off: the sandbox's notification loop would add its own statements to those counted.
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: testDb.url, AUTH_CACHE_MS: '300000', WORKERS: 'off' });
    app = await buildApp({ config, db: rec.db });
    await app.ready();
    repos = repositories(testDb.db);
    tenant = await newTenant(repos);
  });
  after(async () => {
    await app.close();
    await testDb.drop();
  });

  const call = async (opts: InjectOptions & { tenant?: TenantWithKey }) => {
    const { tenant: t = tenant, ...rest } = opts;
    const r = await app.inject({ ...rest, headers: { ...t.headers, ...((rest.headers as object) ?? {}) } });
    answers.push(r);
    return r;
  };
  const create = (body: object, key?: string, t?: TenantWithKey) =>
    call({
      method: 'POST',
      url: URL_,
      payload: body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
      ...(t ? { tenant: t } : {}),
    });
  /** A request as the repository takes it, and how it is created (this year, from the API). */
  const newRequest = (reservationRef: string) =>
    ({
      requestType: 'IMPRINT',
      amountCents: 15000,
      currency: 'EUR',
      guestEmail: 'g@example.com',
      guestFirstName: 'Jeanne',
      guestLastName: 'Martin',
      guestPhone: '',
      language: 'fr',
      reservationRef,
      reservationData: {},
      checkin: null,
    }) as const;
  const createOpts = {
    year: new Date().getFullYear(),
    linkLifetimeDays: 30,
    actor: { source: 'api', actor: null },
  } as const;

  const q = async <T>(sql: string, params: unknown[]) => (await testDb.db.query<T>(sql, params)).rows;
  const rowsFor = async (ref: string, tenantId = tenant.tenantId) =>
    (
      await q<{ n: number }>(
        'SELECT count(*)::int AS n FROM payment_requests WHERE tenant_id = $1 AND reservation_ref = $2',
        [tenantId, ref],
      )
    )[0]?.n;
  const stored = async (key: string, tenantId = tenant.tenantId) =>
    (
      await q<{ status_code: number | null; response_body: string | null }>(
        'SELECT status_code, response_body FROM idempotency_keys WHERE tenant_id = $1 AND key = $2',
        [tenantId, key],
      )
    )[0];
  /**
   * Runs `n` calls so that they meet in the database. On PostgreSQL, a lock held on
   * payment_requests stops every create statement before it starts, until as many are waiting
   * as can be (creates made at once go by groups, two groups at a time, and two creates with
   * one key are never in one group: so two statements with the key meet); then all go at once.
   * (PGlite runs one statement at a time: there, the calls are only concurrent in the app.)
   */
  const allAtOnce = async (n: number, fn: (i: number) => Promise<LightMyRequestResponse>) => {
    const calls = () => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
    if (ENGINE !== 'postgres') return { rs: await calls(), met: n };
    const gate = new pg.Client({ connectionString: testDb.url });
    await gate.connect();
    try {
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE payment_requests IN SHARE MODE');
      const all = calls();
      let met = 0;
      for (let i = 0; i < 300 && met < Math.min(n, MEETING); i++) {
        await sleep(10);
        const w = await gate.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'payment_requests'::regclass",
        );
        met = w.rows[0]?.n ?? 0;
      }
      await gate.query('COMMIT');
      return { rs: await all, met };
    } finally {
      await gate.end();
    }
  };
  /** The statements one call makes, after a warm-up call that made the sequence and cached the key. */
  const statementsOf = async (fn: () => Promise<LightMyRequestResponse>) => {
    const from = statements.length;
    const r = await fn();
    return { r, run: statements.slice(from) };
  };

  test('a successful create with a key is one statement, CREATE_SQL, as one without a key', async () => {
    assert.equal((await create(createBody({ reservation_ref: 'ONE-WARM' }))).statusCode, 201);
    const plain = await statementsOf(() => create(createBody({ reservation_ref: 'ONE-PLAIN' })));
    assert.equal(plain.r.statusCode, 201, plain.r.body);
    assert.deepEqual(plain.run, [CREATE_SQL]);

    const keyed = await statementsOf(() => create(createBody({ reservation_ref: 'ONE-KEYED' }), 'one-1'));
    assert.equal(keyed.r.statusCode, 201, keyed.r.body);
    assert.equal(keyed.r.headers['idempotent-replayed'], undefined);
    assert.deepEqual(keyed.run, [CREATE_SQL], keyed.run.join('\n----\n'));
    // That one statement stored the key, complete, with the very bytes the client received.
    assert.deepEqual(await stored('one-1'), { status_code: 201, response_body: keyed.r.body });
    assert.equal(await rowsFor('ONE-KEYED'), 1);
  });

  test('the replay is the first body byte for byte, and draws no reference from the sequence', async () => {
    const body = createBody({ reservation_ref: 'BYTES-1' });
    const first = await create(body, 'bytes-1');
    assert.equal(first.statusCode, 201, first.body);
    const created = first.json();
    assert.match(created.reference, /^IMP-\d{4}-\d{4,}$/);
    assert.equal(created.payment_link.includes(created.uuid), true);
    assert.equal(first.body.includes('@@'), false, 'the placeholder was replaced');
    for (let i = 0; i < 3; i++) {
      const again = await create(body, 'bytes-1');
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal(again.headers['content-type'], first.headers['content-type']);
    }
    assert.equal(await rowsFor('BYTES-1'), 1);
    // Replays took no number: the next request gets the one right after.
    const next = (await create(createBody({ reservation_ref: 'BYTES-2' }))).json();
    const n = (ref: string) => Number(ref.split('-').pop());
    assert.equal(n(next.reference), n(created.reference) + 1);
  });

  test('many concurrent creates with one key and body: one request; every answer is its 201 or a 409', async () => {
    const body = createBody({ reservation_ref: 'RACE-1' });
    const { rs, met } = await allAtOnce(25, () => create(body, 'race-1'));
    assert.ok(met >= 2, `only ${met} creates met in the database`);
    const codes = rs.map((r) => r.statusCode);
    assert.ok(
      codes.every((s) => s === 201 || s === 409),
      codes.join(','),
    );
    assert.equal(await rowsFor('RACE-1'), 1);
    const ok = rs.filter((r) => r.statusCode === 201);
    assert.equal(ok.filter((r) => r.headers['idempotent-replayed'] === undefined).length, 1);
    const firstBody = ok.find((r) => r.headers['idempotent-replayed'] === undefined)?.body;
    for (const r of ok) assert.equal(r.body, firstBody);
    const uuid = JSON.parse(firstBody as string).uuid as string;
    const [row] = await q<{ id: string }>(
      'SELECT id FROM payment_requests WHERE tenant_id = $1 AND reservation_ref = $2',
      [tenant.tenantId, 'RACE-1'],
    );
    assert.equal(row?.id, uuid);
    const history = await q<{ n: number }>(
      'SELECT count(*)::int AS n FROM status_history WHERE payment_request_id = $1',
      [uuid],
    );
    assert.equal(history[0]?.n, 1);
    assert.equal((await stored('race-1'))?.response_body, firstBody);
  });

  test('concurrent creates with one key but different bodies: one request, the others 422 or 409', async () => {
    const { rs, met } = await allAtOnce(12, (i) => create(createBody({ reservation_ref: `RACE-B-${i}` }), 'race-b'));
    assert.ok(met >= 2, `only ${met} creates met in the database`);
    const created = rs.filter((r) => r.statusCode === 201);
    assert.equal(created.length, 1, rs.map((r) => r.statusCode).join(','));
    assert.ok(rs.every((r) => [201, 409, 422].includes(r.statusCode)));
    const n = await q<{ n: number }>(
      "SELECT count(*)::int AS n FROM payment_requests WHERE tenant_id = $1 AND reservation_ref LIKE 'RACE-B-%'",
      [tenant.tenantId],
    );
    assert.equal(n[0]?.n, 1);
  });

  test('a key whose first use was a 422 replays the 422, byte for byte, and never creates', async () => {
    const bad = createBody({ reservation_ref: 'R422', amount: 10.123 });
    const first = await create(bad, 'k422');
    assert.equal(first.statusCode, 422, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.equal(first.json().details[0].field, 'amount');
    const again = await create(bad, 'k422');
    assert.equal(again.statusCode, 422);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.deepEqual(await stored('k422'), { status_code: 422, response_body: first.body });
    // The key stays bound to that body: a corrected body under it is the mismatch 422.
    const fixed = await create(createBody({ reservation_ref: 'R422' }), 'k422');
    assert.equal(fixed.statusCode, 422);
    assert.equal(fixed.json().error, 'Idempotency-Key was already used with a different request');
    assert.equal(await rowsFor('R422'), 0);
  });

  test('an expired key is taken over: the same key and body then create a new request', async () => {
    const body = createBody({ reservation_ref: 'EXPIRED-1' });
    const first = await create(body, 'old-key');
    assert.equal(first.statusCode, 201);
    await q("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE tenant_id = $1 AND key = $2", [
      tenant.tenantId,
      'old-key',
    ]);
    const second = await create(body, 'old-key');
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.notEqual(second.json().uuid, first.json().uuid);
    assert.equal(await rowsFor('EXPIRED-1'), 2);
    // The key now holds the new response, and replays it.
    assert.equal((await stored('old-key'))?.response_body, second.body);
    const third = await create(body, 'old-key');
    assert.equal(third.headers['idempotent-replayed'], 'true');
    assert.equal(third.body, second.body);
    assert.equal(await rowsFor('EXPIRED-1'), 2);
  });

  test('a key not yet expired (23 hours) is not taken over', async () => {
    const body = createBody({ reservation_ref: 'NOT-EXPIRED' });
    const first = await create(body, 'day-key');
    await q("UPDATE idempotency_keys SET created_at = now() - interval '23 hours' WHERE tenant_id = $1 AND key = $2", [
      tenant.tenantId,
      'day-key',
    ]);
    const again = await create(body, 'day-key');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(await rowsFor('NOT-EXPIRED'), 1);
  });

  test('a claim held by a live request is a 409 and creates nothing; an abandoned one is taken over', async () => {
    const body = createBody({ reservation_ref: 'CLAIMED' });
    // The fingerprint the route computes: method, url and the raw body inject sends.
    const fingerprint = createHash('sha256')
      .update(`POST ${URL_}\n${JSON.stringify(body)}`)
      .digest('hex');
    await q('INSERT INTO idempotency_keys (tenant_id, key, fingerprint) VALUES ($1, $2, $3)', [
      tenant.tenantId,
      'held',
      fingerprint,
    ]);
    const busy = await create(body, 'held');
    assert.equal(busy.statusCode, 409, busy.body);
    assert.equal(await rowsFor('CLAIMED'), 0);
    await q("UPDATE idempotency_keys SET created_at = now() - interval '3 minutes' WHERE tenant_id = $1 AND key = $2", [
      tenant.tenantId,
      'held',
    ]);
    const taken = await create(body, 'held');
    assert.equal(taken.statusCode, 201, taken.body);
    assert.equal(await rowsFor('CLAIMED'), 1);
    assert.equal((await stored('held'))?.response_body, taken.body);
  });

  test("a key first used on another route's request, then on create, is a 422 and creates nothing", async () => {
    const c = (await create(createBody({ reservation_ref: 'CROSS-1' }))).json();
    const cancelled = await call({
      method: 'POST',
      url: `${URL_}${c.uuid}/cancel/`,
      headers: { 'idempotency-key': 'x' },
    });
    assert.equal(cancelled.statusCode, 200);
    const onCreate = await create(createBody({ reservation_ref: 'CROSS-2' }), 'x');
    assert.equal(onCreate.statusCode, 422);
    assert.equal(await rowsFor('CROSS-2'), 0);
  });

  test("the tenant's first create of the year, with a key: the sequence is made and the create retried", async () => {
    const fresh = await newTenant(repos, 'Hôtel Neuf', {});
    for (const type of ['IMPRINT', 'DEPOSIT'] as const) {
      const counters = await q<{ n: number }>(
        'SELECT count(*)::int AS n FROM reference_counters WHERE tenant_id = $1 AND request_type = $2',
        [fresh.tenantId, type],
      );
      assert.equal(counters[0]?.n, 0, 'no sequence yet');
      const body = createBody({ request_type: type, reservation_ref: `FIRST-${type}` });
      const first = await create(body, `first-${type}`, fresh);
      assert.equal(first.statusCode, 201, first.body);
      assert.match(first.json().reference, /-0001$/);
      const again = await create(body, `first-${type}`, fresh);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal(await rowsFor(`FIRST-${type}`, fresh.tenantId), 1);
      assert.equal((await stored(`first-${type}`, fresh.tenantId))?.response_body, first.body);
    }
  });

  test('a keyed create queues the payment link e-mail once, and its replay queues none', async () => {
    const t = await repos.tenants.create({ name: 'Hôtel Mail', confirmationEmail: true });
    const k = await newKey(repos, t.id);
    const body = createBody({ reservation_ref: 'MAIL-1' });
    const first = await create(body, 'mail-1', k);
    assert.equal(first.statusCode, 201, first.body);
    await create(body, 'mail-1', k);
    const mails = await q<{ n: number }>('SELECT count(*)::int AS n FROM email_outbox WHERE payment_request_id = $1', [
      first.json().uuid,
    ]);
    assert.equal(mails[0]?.n, 1);
  });

  test('references go on past 9999 with more digits, with or without a key', async () => {
    const t = await newTenant(repos, 'Hôtel Plein');
    const first = (await create(createBody({ reservation_ref: 'FULL-0' }), undefined, t)).json();
    assert.match(first.reference, /-0001$/);
    const year = first.reference.split('-')[1];
    await q('SELECT setval($1::regclass, 9998)', [referenceSequenceName(t.tenantId, 'IMPRINT', Number(year))]);
    const refs: string[] = [];
    for (const [i, key] of [undefined, 'full-1', undefined].entries()) {
      const r = await create(createBody({ reservation_ref: `FULL-${i + 1}` }), key, t);
      assert.equal(r.statusCode, 201, r.body);
      refs.push(r.json().reference);
    }
    assert.deepEqual(refs, [`IMP-${year}-9999`, `IMP-${year}-10000`, `IMP-${year}-10001`]);
  });

  test('CREATE_SQL still works on one line, as the benchmark runs it, with and without a key', async () => {
    const oneLine = CREATE_SQL.trim().replace(/\s*\n\s*/g, ' ');
    const p = {
      requestType: 'IMPRINT',
      amountCents: 100,
      currency: 'EUR',
      guestEmail: 'a@example.com',
      guestFirstName: 'A',
      guestLastName: 'B',
      guestPhone: '',
      language: 'fr',
      reservationRef: 'ONE-LINE',
      reservationData: {},
      checkin: null,
    } as const;
    const opts = {
      year: new Date().getFullYear(),
      linkLifetimeDays: 30,
      actor: { source: 'api', actor: null },
    } as const;
    await repos.paymentRequests.create(tenant.tenantId, p, opts);
    const key = { key: 'one-line', fingerprint: 'f', template: '{"reference":"@@R@@"}', placeholder: '@@R@@' };
    for (const k of [undefined, key]) {
      const r = await testDb.db.query<{ reference: string; response_body: string | null }>(
        oneLine,
        createParams(randomUUID(), tenant.tenantId, p, opts, k),
      );
      assert.equal(r.rows.length, 1);
      const row = r.rows[0];
      assert.equal(row?.response_body, k ? `{"reference":"${row?.reference}"}` : null);
    }
    assert.equal(await rowsFor('ONE-LINE'), 3);
  });

  test('creates made at once go by groups: each has its own reference, history, event, link e-mail and stored key', async () => {
    const mailing = await newTenant(repos, 'Hôtel qui écrit');
    const quiet = await newTenant(repos, 'Hôtel silencieux');
    await q('UPDATE tenants SET confirmation_email = (id = $1) WHERE id IN ($1, $2)', [
      mailing.tenantId,
      quiet.tenantId,
    ]);
    // Each hotel's first create makes its sequence (alone, before the burst).
    for (const t of [mailing, quiet])
      assert.equal((await create(createBody({ reservation_ref: 'G-WARM' }), undefined, t)).statusCode, 201);
    const from = statements.length;
    const burst = Array.from({ length: 24 }, (_, i) => ({
      t: i % 2 === 0 ? mailing : quiet,
      ref: `G-${i}`,
      key: i % 3 === 0 ? undefined : `group-${i}`,
    }));
    const rs = await Promise.all(burst.map((b) => create(createBody({ reservation_ref: b.ref }), b.key, b.t)));
    const run = statements.slice(from);
    for (const r of rs) assert.equal(r.statusCode, 201, r.body);
    // Grouped: fewer create statements than creates, at least one of them for many.
    const grouped = run.filter((sql) => sql === CREATE_MANY_SQL).length;
    const alone = run.filter((sql) => sql === CREATE_SQL).length;
    assert.ok(grouped >= 1, `no grouped statement among ${run.length}`);
    assert.ok(
      grouped + alone < burst.length,
      `${grouped} grouped and ${alone} lone statements for ${burst.length} creates`,
    );

    const bodies = rs.map((r) => r.json() as { uuid: string; reference: string });
    for (const t of [mailing, quiet]) {
      const refs = bodies.filter((_, i) => burst[i]?.t === t).map((b) => b.reference);
      assert.equal(new Set(refs).size, refs.length, `a reference given twice: ${refs.join(', ')}`);
    }
    for (const [i, b] of burst.entries()) {
      const { uuid, reference } = bodies[i] as { uuid: string; reference: string };
      const [row] = await q<{ tenant_id: string; reference: string; reservation_ref: string }>(
        'SELECT tenant_id, reference, reservation_ref FROM payment_requests WHERE id = $1',
        [uuid],
      );
      assert.deepEqual(row, { tenant_id: b.t.tenantId, reference, reservation_ref: b.ref });
      const [counts] = await q<{ history: number; events: number; mails: number }>(
        `SELECT (SELECT count(*)::int FROM status_history WHERE payment_request_id = $1) AS history,
                (SELECT count(*)::int FROM events WHERE payment_request_id = $1) AS events,
                (SELECT count(*)::int FROM email_outbox WHERE payment_request_id = $1 AND kind = 'payment_link') AS mails`,
        [uuid],
      );
      assert.deepEqual(counts, { history: 1, events: 1, mails: b.t === mailing ? 1 : 0 }, b.ref);
      if (b.key) {
        assert.deepEqual(await stored(b.key, b.t.tenantId), { status_code: 201, response_body: rs[i]?.body });
        const again = await create(createBody({ reservation_ref: b.ref }), b.key, b.t);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.equal(again.body, rs[i]?.body);
      }
    }
  });

  test("a group whose statement fails is made again one create at a time: a hotel's first create among others", async () => {
    const fresh = await newTenant(repos, 'Hôtel nouveau');
    // Its own recorder and repositories: four creates asked in one turn make one group.
    const rec = recording(testDb.db);
    const own = repositories(rec.db);
    const key = (k: string) => () => ({
      key: k,
      fingerprint: 'f',
      template: '{"reference":"@@R@@"}',
      placeholder: '@@R@@',
    });
    const made = await Promise.all([
      own.paymentRequests.create(tenant.tenantId, newRequest('F-0'), createOpts),
      own.paymentRequests.create(fresh.tenantId, newRequest('F-1'), createOpts),
      own.paymentRequests.create(fresh.tenantId, newRequest('F-2'), createOpts, key('first-of-year')),
      own.paymentRequests.create(tenant.tenantId, newRequest('F-3'), createOpts, key('first-group-3')),
    ]);
    // The group's statement failed on the new hotel's missing sequence and wrote nothing; each
    // create then ran alone, and the hotel's first made its sequence.
    assert.equal(rec.statements[0], CREATE_MANY_SQL, rec.statements.join('\n----\n'));
    assert.ok(rec.statements.filter((sql) => sql === CREATE_SQL).length >= 4, rec.statements.join('\n----\n'));
    for (const ref of ['F-0', 'F-3']) assert.equal(await rowsFor(ref), 1);
    for (const ref of ['F-1', 'F-2']) assert.equal(await rowsFor(ref, fresh.tenantId), 1);
    assert.deepEqual(
      made
        .slice(1, 3)
        .map((m) => Number(m?.reference.split('-').pop()))
        .sort(),
      [1, 2],
    );
    assert.deepEqual(await stored('first-of-year', fresh.tenantId), {
      status_code: 201,
      response_body: `{"reference":"${made[2]?.reference}"}`,
    });
    assert.equal(made[3]?.response, `{"reference":"${made[3]?.reference}"}`);
  });

  test('a group whose outcome is unknown (its connection lost) is not made again: each create fails as a lone one would', async () => {
    const rec = recording(testDb.db);
    // The real database, but the group's statement loses its connection: it may have committed.
    const lossy: Database = {
      ...rec.db,
      query<T>(sql: string, params?: readonly unknown[]) {
        if (sql === CREATE_MANY_SQL) {
          rec.statements.push(sql);
          return Promise.reject(errors.databaseUnavailable());
        }
        return rec.db.query<T>(sql, params);
      },
    };
    const own = repositories(lossy);
    const made = await Promise.allSettled(
      ['L-0', 'L-1', 'L-2'].map((ref) => own.paymentRequests.create(tenant.tenantId, newRequest(ref), createOpts)),
    );
    for (const m of made) {
      assert.equal(m.status, 'rejected');
      assert.equal((m.reason as { code?: string }).code, 'database_unavailable');
    }
    assert.deepEqual(rec.statements, [CREATE_MANY_SQL], 'nothing is run again after a group whose outcome is unknown');
    for (const ref of ['L-0', 'L-1', 'L-2']) assert.equal(await rowsFor(ref), 0);
  });

  test('no answer was a 5xx', () => {
    assert.ok(answers.length > 0);
    for (const r of answers) assert.ok(r.statusCode < 500, `${r.statusCode} ${r.body}`);
  });
});
