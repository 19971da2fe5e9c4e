import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { adminUsers, normaliseUsername, scryptParams, twoFactor } from '../../admin-users/index.ts';
import { AppError, DAY_RANGE_TEXT, dayEnd, dayStart, isDayInRange } from '../../domain/index.ts';
import { cronProblem, isScheduledJobName, nextRunAfter, runJobNow } from '../../jobs/index.ts';
import { parseSetting, SETTING_FIELDS } from '../../tenants/index.ts';
import { ACCOUNT_MESSAGES, issueText, userSessions } from '../account/index.ts';
import {
  audit,
  controlNotFound,
  Form,
  flash,
  isUuid,
  pageContext,
  refusedFields,
  refuseInvalid,
  renewCsrfSecret,
  tenantScope,
  user,
} from '../shell/index.ts';
import { type AuditQuery, auditPage, schedulesPage, tenantsPage, userPage, usersPage } from './pages.ts';
import { ADMIN_MESSAGES } from './words.ts';

const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

const AUDIT_PAGE = 100;

/**
 * The forms' fields are optional text with bounds no page of theirs reaches: what a name, a
 * zone, a username or a cron must be is the domain's (parseSetting, adminUsers, cronProblem),
 * whose messages the pages show as before. The schema refuses what no form sends (a field
 * twice, a value far too long), answered with the page's own message.
 */
const TenantForm = Type.Object({ name: Form.optionalText(1000), timezone: Form.optionalText(200), _csrf: Form.csrf });
const UserForm = Type.Object({
  username: Form.optionalText(200),
  // Longer than adminUsers' own limit (1024), which words a long password itself.
  password: Form.optionalText(4096),
  tenant: Form.optionalText(64),
  role: Form.optionalText(64),
  _csrf: Form.csrf,
});
const UserParams = Type.Object({ username: Type.String({ maxLength: 200 }) });
const UserActionParams = Type.Object({
  username: Type.String({ maxLength: 200 }),
  // Spelled out: Form.choice's values are typed never (its Union of a mapped array).
  action: Type.Union([
    Type.Literal('disable'),
    Type.Literal('enable'),
    Type.Literal('end-sessions'),
    Type.Literal('reset-2fa'),
  ]),
});
const JobParams = Type.Object({ job: Type.String({ maxLength: 100 }) });
/** A ticked box sends "on", an unticked one nothing. */
const ScheduleForm = Type.Object({
  cron: Form.optionalText(200),
  timezone: Form.optionalText(200),
  enabled: Type.Optional(Type.Literal('on')),
  _csrf: Form.csrf,
});
const CsrfOnly = Type.Object({ _csrf: Form.csrf });
/** The audit's filters: read leniently as before (a date that is none is no filter), bounded. */
const AuditFilters = Type.Object({
  tenant: Form.optionalText(64),
  action: Form.optionalText(100),
  username: Form.optionalText(200),
  reference: Form.optionalText(200),
  from: Form.optionalText(100),
  to: Form.optionalText(100),
  before: Form.optionalText(100),
});

/** A day of the audit's filter: empty is none; anything but a day in range is refused (400). */
function auditDay(v: string | undefined, field: 'from' | 'to'): string | undefined {
  if (!v) return undefined;
  if (!isDayInRange(v)) throw new AppError('invalid_date', 400, `${field} must be ${DAY_RANGE_TEXT}`, { field });
  return v;
}

export async function adminRoutes(instance: FastifyInstance): Promise<void> {
  const control = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { payreq } = control;
  const users = adminUsers(payreq.repos, scryptParams(payreq.config.passwordHashCost));

  /**
   * The hotel whose clock the Schedules page reads: the user's own, else the one zone every hotel
   * is in (an install of one hotel, or of hotels in one country); undefined when they differ.
   */
  const hotelZone = async (request: FastifyRequest): Promise<string | undefined> => {
    const own = request.controlUser?.tenantId;
    if (own) return (await payreq.repos.tenants.find(own))?.timezone;
    const zones = await payreq.repos.tenants.zones();
    return zones.length === 1 ? zones[0] : undefined;
  };

  control.get('/tenants', async (request, reply) => {
    return send(reply, tenantsPage(await pageContext(request, reply), await payreq.repos.tenants.list()));
  });

  control.post('/tenants', { schema: { body: TenantForm }, attachValidation: true }, async (request, reply) => {
    if (refusedFields(request).size > 0) {
      const ctx = await pageContext(request, reply);
      return send(reply, tenantsPage(ctx, await payreq.repos.tenants.list(), [ctx.m.invalid]), 422);
    }
    const nameField = SETTING_FIELDS.find((f) => f.name === 'name');
    const zoneField = SETTING_FIELDS.find((f) => f.name === 'timezone');
    const name = nameField ? parseSetting(nameField, request.body.name ?? '') : { problem: '' };
    const zone = zoneField ? parseSetting(zoneField, request.body.timezone ?? '') : { problem: '' };
    if ('problem' in name || 'problem' in zone) {
      const ctx = await pageContext(request, reply);
      const w = ADMIN_MESSAGES[ctx.language];
      const issues = [
        'problem' in name ? `${w.name}: ${name.problem}` : '',
        'problem' in zone ? `${w.timezone}: ${zone.problem}` : '',
      ].filter(Boolean);
      return send(reply, tenantsPage(ctx, await payreq.repos.tenants.list(), issues), 422);
    }
    const tenant = await payreq.repos.tenants.create({ name: String(name.value), timezone: String(zone.value) });
    await audit(request, { tenantId: tenant.id, action: 'tenant_created', target: tenant.name, outcome: 'ok' });
    return reply.redirect(`/control/settings?tenant=${tenant.id}`, 303);
  });

  control.get('/users', async (request, reply) => {
    const ctx = await pageContext(request, reply);
    return send(reply, usersPage(ctx, await users.list(), await payreq.repos.tenants.list()));
  });

  control.post('/users', { schema: { body: UserForm }, attachValidation: true }, async (request, reply) => {
    const refused = refusedFields(request).size > 0;
    const ctx = await pageContext(request, reply);
    const again = async (issues: string[]) =>
      send(reply, usersPage(ctx, await users.list(), await payreq.repos.tenants.list(), issues), 422);
    if (refused) return again([ctx.m.invalid]);
    const tenant = request.body.tenant ?? '';
    const role = request.body.role ?? 'viewer';
    const username = request.body.username ?? '';
    try {
      if (tenant !== '' && !isUuid(tenant)) throw controlNotFound();
      const tenantId = tenant === '' ? null : tenant.toLowerCase();
      const created = await users.create({
        username,
        password: request.body.password ?? '',
        grants: tenantId === null ? [] : [{ tenantId, role }],
      });
      await audit(request, {
        tenantId,
        action: 'user_created',
        target: created.username,
        outcome: 'ok',
        detail: tenantId === null ? { role: 'superuser' } : { role },
      });
      flash(request, 'ok', ctx.m.done);
      return reply.redirect('/control/users', 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.httpStatus === 404) throw err;
      // In the page's language: each problem by its code, never the command line's English.
      const details = (err.extra.details as { code?: string }[] | undefined) ?? [];
      return again(
        err.code === 'username_taken'
          ? [ACCOUNT_MESSAGES[ctx.language].usernameTaken(username.trim().toLowerCase())]
          : details.length > 0
            ? details.map((d) => issueText(ctx.m, d.code ?? ''))
            : [ctx.m.invalid],
      );
    }
  });

  control.get(
    '/users/:username',
    { schema: { params: UserParams }, attachValidation: true },
    async (request, reply) => {
      refuseInvalid(request);
      const name = normaliseUsername(request.params.username);
      const found = (await users.list()).find((u) => u.username === name);
      if (!found) throw controlNotFound();
      const [state, sessions] = await Promise.all([
        twoFactor(payreq.repos, payreq.secretKeys).state(found.id),
        userSessions(payreq.repos, found.id, control.controlNow(), request.session.sessionId),
      ]);
      const ctx = await pageContext(request, reply);
      return send(reply, userPage(ctx, { user: found, twoFactor: state.state, sessions }));
    },
  );

  // Disable, enable, end every session, reset the second factor (a lost phone): each audited.
  control.post(
    '/users/:username/:action',
    { schema: { params: UserActionParams, body: CsrfOnly }, attachValidation: true },
    async (request, reply) => {
      refuseInvalid(request);
      const { username, action } = request.params;
      const me = user(request);
      const self = normaliseUsername(username) === me.username;
      if (action === 'end-sessions' || action === 'reset-2fa') {
        const ctx = await pageContext(request, reply);
        const done =
          action === 'end-sessions'
            ? await users.endSessions(username).catch(() => {
                throw controlNotFound();
              })
            : await users.resetTwoFactor(username).catch(() => {
                throw controlNotFound();
              });
        await audit(request, {
          tenantId: null,
          action: action === 'end-sessions' ? 'user_sessions_ended' : 'two_factor_reset',
          target: done.user.username,
          outcome: 'ok',
          detail: { sessions_ended: done.ended },
        });
        const a = ACCOUNT_MESSAGES[ctx.language];
        const text =
          action === 'end-sessions'
            ? a.sessionsEndedFor(done.user.username, done.ended)
            : a.twoFactorResetFor(done.user.username);
        // A superuser who ended their own sessions (or reset their own factor) has ended this one.
        if (self) {
          await request.session.destroy();
          renewCsrfSecret(reply, payreq.config.production);
          return reply.redirect('/control/sign-in', 303);
        }
        flash(request, 'ok', text);
        return reply.redirect(`/control/users/${encodeURIComponent(done.user.username)}`, 303);
      }
      if (self) throw controlNotFound();
      const changed = await users.setDisabled(username, action === 'disable').catch(() => {
        throw controlNotFound();
      });
      await audit(request, {
        tenantId: null,
        action: `user_${action}d`,
        target: changed.username,
        outcome: 'ok',
      });
      return reply.redirect('/control/users', 303);
    },
  );

  control.get('/schedules', async (request, reply) => {
    const ctx = await pageContext(request, reply);
    const [schedules, runs] = await Promise.all([
      payreq.repos.schedules.list(),
      payreq.repos.schedules.runs(undefined, 30),
    ]);
    return send(reply, schedulesPage(ctx, schedules, runs, [], await hotelZone(request)));
  });

  control.post(
    '/schedules/:job',
    { schema: { params: JobParams, body: ScheduleForm }, attachValidation: true },
    async (request, reply) => {
      const refused = refusedFields(request).size > 0;
      const current = await payreq.repos.schedules.get(request.params.job);
      if (!current) throw controlNotFound();
      const ctx = await pageContext(request, reply);
      const cron = refused ? '' : (request.body.cron ?? '').trim();
      const zoneField = SETTING_FIELDS.find((f) => f.name === 'timezone');
      const zone =
        zoneField && !refused ? parseSetting(zoneField, request.body.timezone ?? '') : { problem: 'unknown' };
      const cronIssue = refused ? undefined : cronProblem(cron);
      if (refused || cronIssue || 'problem' in zone) {
        const w = ADMIN_MESSAGES[ctx.language];
        const issues = refused
          ? [ctx.m.invalid]
          : [cronIssue ? `${w.cron}: ${cronIssue}` : '', 'problem' in zone ? `${w.timezone}: ${zone.problem}` : ''];
        await audit(request, { tenantId: null, action: 'schedule_changed', target: current.job, outcome: 'refused' });
        const [schedules, runs] = await Promise.all([
          payreq.repos.schedules.list(),
          payreq.repos.schedules.runs(undefined, 30),
        ]);
        return send(reply, schedulesPage(ctx, schedules, runs, issues.filter(Boolean), await hotelZone(request)), 422);
      }
      const timezone = String(zone.value);
      const enabled = request.body.enabled === 'on';
      const nextRunAt = enabled ? nextRunAfter(cron, timezone, control.controlNow()) : null;
      await payreq.repos.schedules.update(current.job, { cron, timezone, enabled, nextRunAt });
      await audit(request, {
        tenantId: null,
        action: 'schedule_changed',
        target: current.job,
        outcome: 'ok',
        detail: { cron, timezone, enabled },
      });
      flash(request, 'ok', ctx.m.saved);
      return reply.redirect('/control/schedules', 303);
    },
  );

  control.post(
    '/schedules/:job/run',
    { schema: { params: JobParams, body: CsrfOnly }, attachValidation: true },
    async (request, reply) => {
      refuseInvalid(request);
      const schedule = await payreq.repos.schedules.get(request.params.job);
      const name = schedule?.job;
      if (!name || !isScheduledJobName(name)) throw controlNotFound();
      const ctx = await pageContext(request, reply);
      // Through the one queue, as a scheduled run: a run of the same job and day under way is
      // waited for (a double submit, the scheduler's slot), not doubled.
      const { run } = await runJobNow(
        {
          db: payreq.db,
          repos: payreq.repos,
          config: payreq.config,
          context: async () => payreq,
          onRun: (r) => payreq.metrics.jobRun(r.job, r.outcome, r.seconds),
        },
        name,
        { startedBy: `user:${user(request).username}` },
      );
      const outcome = run.outcome === 'ok' ? 'ok' : 'failed';
      await audit(request, {
        tenantId: null,
        action: 'job_run',
        target: name,
        outcome,
        detail: outcome === 'ok' ? (run.counts ?? undefined) : { error: run.error },
      });
      // What the run found is in the runs table, in words: the notice only says it ran.
      if (outcome === 'ok') flash(request, 'ok', ADMIN_MESSAGES[ctx.language].runDone);
      else flash(request, 'error', `${ctx.m.error}: ${run.error}`);
      return reply.redirect('/control/schedules', 303);
    },
  );

  control.get('/audit', { schema: { querystring: AuditFilters }, attachValidation: true }, async (request, reply) => {
    refuseInvalid(request);
    const raw = request.query;
    const tenantId = tenantScope(request, raw.tenant);
    const ctx = await pageContext(request, reply);
    const query: AuditQuery = {
      action: raw.action?.trim() || undefined,
      username: raw.username?.trim().toLowerCase() || undefined,
      reference: raw.reference?.trim().slice(0, 100) || undefined,
      // Days as the hotel reads them: from its midnight, until the end of the "to" day.
      from: auditDay(raw.from, 'from'),
      to: auditDay(raw.to, 'to'),
    };
    const beforeId = raw.before && /^\d{1,18}$/.test(raw.before) ? raw.before : undefined;
    const rows = await payreq.repos.audit.list({
      tenantId,
      action: query.action,
      username: query.username,
      reference: query.reference,
      from: query.from ? dayStart(query.from, ctx.timeZone) : undefined,
      before: query.to ? dayEnd(query.to, ctx.timeZone) : undefined,
      beforeId,
      limit: AUDIT_PAGE + 1,
    });
    const shown = rows.slice(0, AUDIT_PAGE);
    const params = new URLSearchParams(
      Object.entries({ tenant: raw.tenant, ...query }).filter(([, v]) => v) as [string, string][],
    );
    const last = shown.at(-1);
    if (rows.length > AUDIT_PAGE && last) params.set('before', last.id);
    const next = rows.length > AUDIT_PAGE ? `/control/audit?${params}` : undefined;
    return send(reply, auditPage(ctx, { rows: shown, query, next }));
  });
}
