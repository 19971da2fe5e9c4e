import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { hashPassword, scryptParams } from '../../src/admin-users/index.ts';
import type { RoleGrant, TenantRole } from '../../src/db/index.ts';
import type { TestApp } from '../helpers/test-app.ts';

export const PASSWORD = 'correct horse battery staple';

/**
 * A page without its cells' `data-label`s (each column's heading again, which a phone shows
 * beside the cell), for tests that read a table's cells by their markup.
 */
export const withoutLabels = (body: string): string => body.replace(/ data-label="[^"]*"/g, '');

/**
 * A browser's share of the back office over app.inject: a cookie jar, and the CSRF token of
 * the last page read, as a form on that page would carry it. Real app, real database.
 */
export class ControlClient {
  private cookies = new Map<string, string>();
  csrf = '';
  /** Sent with every request, as a browser sends its User-Agent. */
  headers: Record<string, string> = {};

  private readonly t: TestApp;
  readonly ip: string;

  constructor(t: TestApp, ip = '127.0.0.1') {
    this.t = t;
    this.ip = ip;
  }

  private remember(r: LightMyRequestResponse): void {
    for (const c of r.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const gone = c.value === '' || (c.expires !== undefined && c.expires.getTime() < Date.now());
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(r.body);
    if (token?.[1]) this.csrf = token[1];
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  forgetCookies(): void {
    this.cookies.clear();
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const r = await this.t.app.inject({
      method: 'GET',
      url,
      remoteAddress: this.ip,
      headers: { ...this.headers, cookie: this.cookieHeader(), ...headers },
    });
    this.remember(r);
    return r;
  }

  /** A form post; `_csrf` is the last page's token unless the fields say otherwise. */
  async post(url: string, fields: Record<string, string | string[]> = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    if (!('_csrf' in fields)) body.append('_csrf', this.csrf);
    for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const r = await this.t.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.ip,
      headers: { ...this.headers, cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
    this.remember(r);
    return r;
  }

  /** A multipart form post (a file input), as a browser sends one; `_csrf` as for post(). */
  async postMultipart(
    url: string,
    fields: Record<string, string>,
    files: Record<string, { name: string; type: string; bytes: Buffer }> = {},
  ): Promise<LightMyRequestResponse> {
    const form = new FormData();
    if (!('_csrf' in fields)) form.append('_csrf', this.csrf);
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const [k, f] of Object.entries(files))
      form.append(k, new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
    // The platform's own encoder: boundary, headers of each part, exactly as fetch would send them.
    const encoded = new Request('http://localhost/', { method: 'POST', body: form });
    const r = await this.t.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.ip,
      headers: {
        ...this.headers,
        cookie: this.cookieHeader(),
        'content-type': String(encoded.headers.get('content-type')),
      },
      payload: Buffer.from(await encoded.arrayBuffer()),
    });
    this.remember(r);
    return r;
  }

  async signIn(username: string, password = PASSWORD): Promise<LightMyRequestResponse> {
    await this.get('/control/sign-in');
    return this.post('/control/sign-in', { username, password });
  }

  async signedIn(username: string, password = PASSWORD): Promise<this> {
    const r = await this.signIn(username, password);
    assert.equal(r.statusCode, 303, r.body);
    assert.equal(r.headers.location, '/control/requests');
    return this;
  }
}

/**
 * PASSWORD's hash at the app's PASSWORD_HASH_COST, made once per process and cost: the app then
 * neither raises it at sign-in nor pays more to check it than its configured cost (the lowest in
 * tests, test/helpers/test-app.ts). Signing in still checks the password against it for real;
 * how `adminUsers().create` hashes, at today's cost, is tested where it is the subject
 * (test/security/back-office-passwords.test.ts).
 */
const passwordHashes = new Map<number, Promise<string>>();
function passwordHash(cost: number): Promise<string> {
  let hash = passwordHashes.get(cost);
  if (!hash) {
    hash = hashPassword(PASSWORD, scryptParams(cost));
    passwordHashes.set(cost, hash);
  }
  return hash;
}

/**
 * A back-office user whose password is PASSWORD: a superuser, or `role` (manager unless said)
 * of `tenantId`, or of each tenant of a list of grants.
 */
export async function createUser(
  t: TestApp,
  username: string,
  tenantId: string | null | readonly RoleGrant[] = null,
  role: TenantRole = 'manager',
): Promise<string> {
  const grants = tenantId === null ? [] : typeof tenantId === 'string' ? [{ tenantId, role }] : tenantId;
  const row = await t.repos.adminUsers.insert({
    username,
    passwordHash: await passwordHash(t.config.passwordHashCost),
    grants,
  });
  assert.ok(row, `the username ${username} is free`);
  return row.id;
}
