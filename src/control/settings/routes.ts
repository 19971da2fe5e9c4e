import multipart, { type MultipartFile } from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { apiKeys } from '../../api-keys/index.ts';
import type { Tenant } from '../../db/index.ts';
import { AppError, errors, type FieldIssue, isIsoDate } from '../../domain/index.ts';
import {
  MAX_LOGO_BYTES,
  parseSettings,
  SETTING_FIELDS,
  type SettingField,
  type SettingProblemCode,
  setTenantLogo,
  updateTenantSettings,
} from '../../tenants/index.ts';
import { pmsSettingsSection, pmsSettingsView } from '../pms/index.ts';
import type { ControlLanguage } from '../shell/index.ts';
import { audit, controlNotFound, Form, flash, pageContext, refusedFields, tenantScope, user } from '../shell/index.ts';
import { confirmRevokePage, keysPage, settingsPage } from './pages.ts';
import { SETTING_PROBLEMS } from './setting-problems.ts';

/**
 * The hotel a page or a form names (a superuser's choice; a hotel user's own, or nothing).
 * Longer than an id, or sent twice, it names none the user may see: 404, as tenantScope answers.
 */
const TenantField = Type.Optional(Type.String({ maxLength: 64 }));
const TenantQuery = Type.Object({ tenant: TenantField });
/** A form whose only field is the hotel (the hidden one of every form here). */
const TenantForm = Type.Object({ tenant: TenantField, _csrf: Form.csrf });

/** A new API key: its label (the input's maxlength) and an optional expiry day (YYYY-MM-DD). */
const KeyForm = Type.Object({
  tenant: TenantField,
  label: Form.text(100),
  expires_at: Form.optionalText(10),
  _csrf: Form.csrf,
});
const KeyParams = Type.Object({ prefix: Type.String({ maxLength: 64 }) });
const KeyActionParams = Type.Object({
  prefix: Type.String({ maxLength: 64 }),
  // Spelled out: Form.choice's values are typed never (its Union of a mapped array).
  action: Type.Union([Type.Literal('disable'), Type.Literal('enable'), Type.Literal('revoke')]),
});

/**
 * The logo form, multipart: its text fields, and the file as readUpload leaves it (checked by
 * isUpload, then by setTenantLogo: the schema cannot describe a Buffer).
 */
const LogoForm = Type.Object({ tenant: TenantField, _csrf: Form.csrf, logo: Type.Optional(Type.Unknown()) });

/**
 * A setting as the form sends it: a ticked box "on" (an unticked one nothing), any other
 * setting text up to SETTING_TEXT characters, more than any setting holds (what it must be
 * beyond that is parseSetting's, whose words the page shows as the CLI's).
 */
const SETTING_TEXT = 1000;
const settingValue = (f: SettingField) =>
  f.kind === 'boolean' ? Type.Optional(Type.Literal('on')) : Form.optionalText(SETTING_TEXT);
const settingValues: Record<string, ReturnType<typeof settingValue>> = Object.fromEntries(
  SETTING_FIELDS.map((f) => [f.name, settingValue(f)]),
);
const SettingsForm = Type.Object({
  ...settingValues,
  tenant: TenantField,
  boolean_fields: Form.optionalText(SETTING_TEXT),
  _csrf: Form.csrf,
});

/** A setting the schema refused (sent twice, far too long, a box not "on"), worded as its kind's problem. */
const SCHEMA_PROBLEM: Record<SettingField['kind'], SettingProblemCode> = {
  text: 'too_long',
  email: 'email',
  boolean: 'on_or_off',
  integer: 'whole_number',
  timezone: 'time_zone',
  url: 'https_url',
  phone: 'phone',
  colour: 'hex_colour',
  language: 'language',
};

const KEY_AUDIT = { disable: 'key_disabled', enable: 'key_enabled', revoke: 'key_revoked' } as const;
const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

const invalidUpload = () =>
  new AppError('invalid_upload', 400, 'The upload was cut short or is not a valid multipart form');

/** An uploaded file as the multipart parser leaves it in the body: its bytes, and whether it was cut at the limit. */
interface Upload {
  bytes: Buffer;
  truncated: boolean;
}

function isUpload(v: unknown): v is Upload {
  return typeof v === 'object' && v !== null && Buffer.isBuffer((v as Upload).bytes);
}

/**
 * Reads at most one byte more than a logo may have: a bigger file is cut there (never held
 * whole in memory) and refused as too big, with the same words as the CLI's.
 */
async function readUpload(this: FastifyRequest, part: MultipartFile): Promise<void> {
  const bytes = await part.toBuffer();
  (part as MultipartFile & { value: Upload }).value = { bytes, truncated: part.file.truncated };
}

/**
 * The tenant a configuration page is about: a tenant user's own; for a superuser, the one
 * named or else the first. Another tenant's, or one that does not exist: 404.
 */
async function configTenant(request: FastifyRequest, named: unknown): Promise<{ tenant: Tenant; tenants: Tenant[] }> {
  const { repos } = request.server.payreq;
  const scope = tenantScope(request, named);
  const tenants = user(request).tenantId === null ? await repos.tenants.list() : [];
  const tenant = scope ? await repos.tenants.find(scope) : tenants[0];
  if (!tenant) throw controlNotFound();
  return { tenant, tenants };
}

export async function configRoutes(instance: FastifyInstance): Promise<void> {
  const control = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { payreq } = control;
  const keys = apiKeys(payreq.repos, (prefix) => payreq.auth.forget(prefix));
  // The settings page, again with what was typed and what is wrong with it (422).
  const settingsAgain = async (
    request: FastifyRequest,
    reply: FastifyReply,
    p: Omit<Parameters<typeof settingsPage>[1], 'webhooks' | 'providerAccount' | 'pms'>,
  ) => {
    const ctx = await pageContext(request, reply);
    const webhooks = await payreq.repos.webhooks.listEndpoints(p.tenant.id);
    const providerAccount = await payreq.repos.providerAccounts.find(p.tenant.id);
    const pms = pmsSettingsSection(ctx, p.tenant.id, await pmsSettingsView(request, p.tenant.id));
    return send(
      reply,
      settingsPage(ctx, {
        ...p,
        webhooks,
        providerAccount,
        pms,
        publicBaseUrl: payreq.config.publicBaseUrl,
        instanceProvider: payreq.config.paymentProvider,
      }),
      422,
    );
  };

  control.get('/keys', { schema: { querystring: TenantQuery }, attachValidation: true }, async (request, reply) => {
    refusedFields(request);
    const { tenant, tenants } = await configTenant(request, request.query.tenant);
    // The full key exists in the session for this one page view, then is dropped for good.
    const fresh = request.session.get('newKey');
    if (fresh) request.session.set('newKey', undefined);
    const ctx = await pageContext(request, reply);
    const list = await keys.list(tenant.id);
    const newKey = fresh && list.some((k) => k.prefix === fresh.prefix) ? fresh : undefined;
    return send(reply, keysPage(ctx, { tenant, tenants, keys: list, newKey }));
  });

  control.post(
    '/keys',
    { schema: { body: KeyForm, querystring: TenantQuery }, attachValidation: true },
    async (request, reply) => {
      const refused = refusedFields(request).size > 0;
      const { tenant, tenants } = await configTenant(request, request.body.tenant ?? request.query.tenant);
      const ctx = await pageContext(request, reply);
      const label = refused ? '' : request.body.label.trim();
      const expiry = refused ? '' : (request.body.expires_at ?? '').trim();
      // A day that exists, or none: 9999-99-99 passed a pattern check and reached the database.
      const expiresAt = expiry === '' ? null : isIsoDate(expiry) ? new Date(`${expiry}T00:00:00Z`) : undefined;
      const back = `/control/keys?tenant=${tenant.id}`;
      if (refused || label === '' || expiresAt === undefined || (expiresAt && expiresAt.getTime() <= Date.now())) {
        // The form again, with what is wrong, and nothing created: a 422 like every other form.
        const list = await keys.list(tenant.id);
        const shown = { ...ctx, flash: { kind: 'error' as const, text: ctx.m.invalid } };
        return send(reply, keysPage(shown, { tenant, tenants, keys: list }), 422);
      }
      const { key, summary } = await keys.create({ tenantId: tenant.id, label, expiresAt });
      request.session.set('newKey', { prefix: summary.prefix, key });
      await audit(request, {
        tenantId: tenant.id,
        action: 'key_created',
        target: summary.prefix,
        outcome: 'ok',
        detail: { label },
      });
      return reply.redirect(back, 303);
    },
  );

  control.get(
    '/keys/:prefix/confirm-revoke',
    { schema: { params: KeyParams, querystring: TenantQuery }, attachValidation: true },
    async (request, reply) => {
      refusedFields(request);
      const scope = tenantScope(request, undefined);
      const key = await keys.find(request.params.prefix, scope).catch(() => {
        throw controlNotFound();
      });
      return send(reply, confirmRevokePage(await pageContext(request, reply), key));
    },
  );

  control.post(
    '/keys/:prefix/:action',
    { schema: { params: KeyActionParams, body: TenantForm }, attachValidation: true },
    async (request, reply) => {
      refusedFields(request);
      const { prefix, action } = request.params;
      const scope = tenantScope(request, undefined);
      const key = await keys.find(prefix, scope).catch(() => {
        throw controlNotFound();
      });
      const ctx = await pageContext(request, reply);
      try {
        await keys[action](key.prefix, scope);
        await audit(request, { tenantId: key.tenant_id, action: KEY_AUDIT[action], target: key.prefix, outcome: 'ok' });
        flash(request, 'ok', ctx.m.done);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await audit(request, {
          tenantId: key.tenant_id,
          action: KEY_AUDIT[action],
          target: key.prefix,
          outcome: 'refused',
          detail: { reason: err.message },
        });
        flash(request, 'error', `${ctx.m.refused}: ${err.message}`);
      }
      return reply.redirect(`/control/keys?tenant=${key.tenant_id}`, 303);
    },
  );

  // The one multipart form of the back office, in a context of its own: every other form stays
  // urlencoded only. CSRF and the sign-in check still run (hooks of the parent), after parsing.
  await control.register(async (instance) => {
    const uploads = instance.withTypeProvider<TypeBoxTypeProvider>();
    await uploads.register(multipart, {
      attachFieldsToBody: 'keyValues',
      onFile: readUpload,
      throwFileSizeLimit: false,
      limits: { fileSize: MAX_LOGO_BYTES + 1, files: 1, fields: 5, fieldSize: 1024, parts: 6 },
    });
    // The form is parsed by the plugin's own preValidation hook; a body cut short or malformed
    // (no closing boundary, a bad part header) fails there with the parser's plain Error, which
    // was a 500. What fails before this next hook is the client's form; the parent renders it.
    const parsed = new WeakSet<FastifyRequest>();
    uploads.addHook('preValidation', async (request) => {
      parsed.add(request);
    });
    uploads.setErrorHandler((err: FastifyError, request) => {
      const clientError = err instanceof AppError || (err.statusCode !== undefined && err.statusCode < 500);
      throw parsed.has(request) || clientError ? err : invalidUpload();
    });
    uploads.post(
      '/settings/logo',
      { schema: { body: LogoForm, querystring: TenantQuery }, attachValidation: true },
      async (request, reply) => {
        refusedFields(request);
        const { tenant, tenants } = await configTenant(request, request.body.tenant ?? request.query.tenant);
        const upload = request.body.logo;
        // No file chosen reaches here as an empty part (or none): refused by the same check, "empty".
        // A file cut at the limit keeps one byte too many, which is how it is refused as too big.
        const bytes = isUpload(upload) ? upload.bytes : Buffer.alloc(0);
        try {
          const { changed } = await setTenantLogo(payreq.repos, tenant.id, bytes);
          await audit(request, {
            tenantId: tenant.id,
            action: 'logo_changed',
            target: tenant.id,
            outcome: 'ok',
            detail: { changed, bytes: bytes.length },
          });
          flash(request, 'ok', (await pageContext(request, reply)).m.saved);
          return reply.redirect(`/control/settings?tenant=${tenant.id}`, 303);
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
          const problem = ((err.extra.details ?? []) as { message: string }[])[0]?.message ?? err.message;
          await audit(request, {
            tenantId: tenant.id,
            action: 'logo_changed',
            target: tenant.id,
            outcome: 'refused',
            detail: { problem },
          });
          return settingsAgain(request, reply, { tenant, tenants, logoProblem: problem });
        }
      },
    );
  });

  control.post(
    '/settings/logo/remove',
    { schema: { body: TenantForm, querystring: TenantQuery }, attachValidation: true },
    async (request, reply) => {
      refusedFields(request);
      const { tenant } = await configTenant(request, request.body.tenant ?? request.query.tenant);
      const { changed } = await setTenantLogo(payreq.repos, tenant.id, null);
      await audit(request, {
        tenantId: tenant.id,
        action: 'logo_removed',
        target: tenant.id,
        outcome: 'ok',
        detail: { changed },
      });
      const ctx = await pageContext(request, reply);
      flash(request, 'ok', ctx.m.saved);
      return reply.redirect(`/control/settings?tenant=${tenant.id}`, 303);
    },
  );

  control.get('/settings', { schema: { querystring: TenantQuery }, attachValidation: true }, async (request, reply) => {
    refusedFields(request);
    const { tenant, tenants } = await configTenant(request, request.query.tenant);
    const webhooks = await payreq.repos.webhooks.listEndpoints(tenant.id);
    const providerAccount = await payreq.repos.providerAccounts.find(tenant.id);
    const ctx = await pageContext(request, reply);
    // The Apaleo connect form's refusal, if one was just made: shown beside it, as a 422.
    const pmsView = await pmsSettingsView(request, tenant.id);
    const pms = pmsSettingsSection(ctx, tenant.id, pmsView);
    return send(
      reply,
      settingsPage(ctx, {
        tenant,
        tenants,
        webhooks,
        providerAccount,
        pms,
        publicBaseUrl: payreq.config.publicBaseUrl,
        instanceProvider: payreq.config.paymentProvider,
      }),
      pmsView.problem ? 422 : 200,
    );
  });

  control.post(
    '/settings',
    { schema: { body: SettingsForm, querystring: TenantQuery }, attachValidation: true },
    async (request, reply) => {
      const refused = refusedFields(request);
      const { tenant, tenants } = await configTenant(request, request.body.tenant ?? request.query.tenant);
      // A checkbox left unticked sends nothing: every boolean on the form is given. A field the
      // post does not carry at all (a page from before the setting existed) leaves it unchanged;
      // an input the browser sends empty clears a nullable setting. A value the schema refused
      // is not read: it is a problem beside its field, with the domain's problems of the others.
      const given: Readonly<Record<string, string | undefined>> = request.body;
      const raw: Record<string, string | boolean> = {};
      const schemaIssues: FieldIssue[] = [];
      for (const f of SETTING_FIELDS) {
        const code = SCHEMA_PROBLEM[f.kind];
        if (refused.has(f.name)) {
          schemaIssues.push({ field: f.name, code, message: SETTING_PROBLEMS.en[code](f, '') });
          continue;
        }
        const v = given[f.name];
        if (f.kind === 'boolean') raw[f.name] = v === 'on';
        else if (v !== undefined) raw[f.name] = v;
      }
      try {
        if (schemaIssues.length > 0) throw errors.validation([...schemaIssues, ...parseSettings(raw).issues]);
        const { changed, after } = await updateTenantSettings(payreq.repos, tenant.id, raw);
        // The API's next call with this tenant's keys sees the new settings.
        payreq.auth.forgetTenant(tenant.id);
        await audit(request, {
          tenantId: tenant.id,
          action: 'settings_changed',
          target: tenant.id,
          outcome: 'ok',
          detail: { changed },
        });
        const ctx = await pageContext(request, reply);
        flash(request, 'ok', ctx.m.saved);
        return reply.redirect(`/control/settings?tenant=${after.id}`, 303);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
        const details = (err.extra.details ?? []) as FieldIssue[];
        const problems = Object.fromEntries(details.map((d) => [d.field, d.message]));
        const ctx = await pageContext(request, reply);
        const worded = Object.fromEntries(
          details.map((d) => [d.field, settingProblemText(ctx.language, d, String(raw[d.field] ?? ''))]),
        );
        await audit(request, {
          tenantId: tenant.id,
          action: 'settings_changed',
          target: tenant.id,
          outcome: 'refused',
          detail: { problems },
        });
        return settingsAgain(request, reply, { tenant, tenants, values: raw, problems: worded });
      }
    },
  );
}

/** A setting's problem in the reader's language (the audit keeps the English the CLI shows). */
function settingProblemText(language: ControlLanguage, issue: FieldIssue, given: string): string {
  const field = SETTING_FIELDS.find((f) => f.name === issue.field);
  const word = SETTING_PROBLEMS[language][issue.code as SettingProblemCode];
  return field && word ? word(field, given) : issue.message;
}
