import { randomBytes, randomUUID } from 'node:crypto';
import { adminUsers, scryptParams } from '../admin-users/index.ts';
import { apiKeys } from '../api-keys/index.ts';
import type { Config } from '../config/index.ts';
import type { Repositories, Tenant } from '../db/index.ts';

/**
 * Development needs no SECRET_KEY: one is generated on the first start and kept in the
 * database, so card tokens encrypted with it stay readable after a restart. Production
 * refuses to start without one (config), so this never invents a production secret.
 */
export async function withSecretKey(config: Config, repos: Repositories): Promise<Config> {
  if (config.secretKey || config.nodeEnv !== 'development') return config;
  const secretKey = await repos.settings.getOrSet('secret_key', randomBytes(32).toString('hex'));
  return { ...config, secretKey };
}

export interface DemoData {
  tenant: Tenant;
  prefix: string;
  key: string;
  curl: string;
  /** A superuser of the back office; its password exists only in this banner. */
  admin: { url: string; username: string; password: string };
}

/** The demo hotel's contact address: its alerts and digest land in /dev/mail, never in a real box. */
const DEMO_CONTACT = 'reception@demo-hotel.example';

const DEMO_BODY = {
  request_type: 'DEPOSIT',
  amount: 120,
  currency: 'EUR',
  guest_email: 'jeanne.martin@example.com',
  guest_first_name: 'Jeanne',
  guest_last_name: 'Martin',
  language: 'en',
  reservation_ref: 'DEMO-1001',
};

/**
 * The first development start on an empty database creates a demo tenant, a key
 * and a back-office superuser, for the banner to show once. A marker row makes "first" hold with several instances
 * starting together on one PostgreSQL: only the one that writes it creates the demo.
 */
export async function createDemoDataOnce(config: Config, repos: Repositories): Promise<DemoData | undefined> {
  if (config.nodeEnv !== 'development') return undefined;
  if ((await repos.tenants.count()) > 0) return undefined;
  const claim = randomUUID();
  if ((await repos.settings.getOrSet('demo_data_created', claim)) !== claim) return undefined;
  // Its e-mails on from the first minute (the guest's link and confirmation, the hotel's alerts
  // at its contact address, its daily digest), so /dev/mail shows every kind as it happens.
  const created = await repos.tenants.create({ name: 'Demo Hotel', timezone: 'Europe/Paris', confirmationEmail: true });
  const tenant =
    (await repos.tenants.update(created.id, { contact_email: DEMO_CONTACT, digest_email: true })) ?? created;
  const { key, summary } = await apiKeys(repos).create({ tenantId: tenant.id, label: 'demo', expiresAt: null });
  const curl = [
    `curl -X POST ${config.publicBaseUrl}/api/payment-requests/`,
    `-H 'X-API-Key: ${key}'`,
    `-H 'Content-Type: application/json'`,
    `-d '${JSON.stringify(DEMO_BODY)}'`,
  ].join(' ');
  const password = randomBytes(12).toString('base64url');
  const user = await adminUsers(repos, scryptParams(config.passwordHashCost)).create({
    username: 'admin',
    password,
    tenantId: null,
  });
  const admin = { url: `${config.publicBaseUrl}/control/`, username: user.username, password };
  return { tenant, prefix: summary.prefix, key, curl, admin };
}

/** What the first start prints, once: the key is in no log, only on this screen. */
export function demoBanner(demo: DemoData): string {
  return [
    '',
    'First start: created demo data (development only; shown this once).',
    `  tenant:   ${demo.tenant.name} (id ${demo.tenant.id})`,
    `  API key:  ${demo.key}`,
    'Create a DEPOSIT payment request:',
    `  ${demo.curl}`,
    `More keys: payreq key create --tenant ${demo.tenant.id} --label LABEL`,
    `Back office: ${demo.admin.url}`,
    `  user: ${demo.admin.username}   password: ${demo.admin.password}`,
    '',
  ].join('\n');
}
