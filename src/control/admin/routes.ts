import type { FastifyInstance, FastifyReply } from 'fastify';
import { adminUsers, normaliseUsername, scryptParams, twoFactor } from '../../admin-users/index.js';
import { AppError, addDays, isIsoDate, midnightIn } from '../../domain/index.js';
import { cronProblem, nextRunAfter, runUnderLease, SCHEDULED_JOBS } from '../../jobs/index.js';
import { parseSetting, SETTING_FIELDS } from '../../tenants/index.js';
import { ACCOUNT_MESSAGES, issueText, userSessions } from '../account/index.js';
import {
  audit,
  controlNotFound,
  field,
  flash,
  isUuid,
  pageContext,
  renewCsrfSecret,
  tenantScope,
  user,
} from '../shell/index.js';
import { type AuditQuery, auditPage, schedulesPage, tenantsPage, userPage, usersPage } from './pages.js';
import { ADMIN_MESSAGES } from './words.js';

const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

const AUDIT_PAGE = 100;

const USER_ACTIONS = new Set(['disable', 'enable', 'end-sessions', 'reset-2fa']);

export async function adminRoutes(control: FastifyInstance): Promise<void> {
  const { payreq } = control;
  const users = adminUsers(payreq.repos, scryptParams(payreq.config.passwordHashCost));

  control.get('/tenants', async (request, reply) => {
    return send(reply, tenantsPage(await pageContext(request, reply), await payreq.repos.tenants.list()));
  });

  control.post('/tenants', async (request, reply) => {
    const nameField = SETTING_FIELDS.find((f) => f.name === 'name');
    const zoneField = SETTING_FIELDS.find((f) => f.name === 'timezone');
    const name = nameField ? parseSetting(nameField, field(request.body, 'name') ?? '') : { problem: '' };
    const zone = zoneField ? parseSetting(zoneField, field(request.body, 'timezone') ?? '') : { problem: '' };
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

  control.post('/users', async (request, reply) => {
    const tenant = field(request.body, 'tenant') ?? '';
    const role = field(request.body, 'role') ?? 'viewer';
    const ctx = await pageContext(request, reply);
    try {
      if (tenant !== '' && !isUuid(tenant)) throw controlNotFound();
      const tenantId = tenant === '' ? null : tenant.toLowerCase();
      const created = await users.create({
        username: field(request.body, 'username') ?? '',
        password: field(request.body, 'password') ?? '',
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
      const issues =
        err.code === 'username_taken'
          ? [
              ACCOUNT_MESSAGES[ctx.language].usernameTaken(
                String(field(request.body, 'username') ?? '')
                  .trim()
                  .toLowerCase(),
              ),
            ]
          : details.length > 0
            ? details.map((d) => issueText(ctx.m, d.code ?? ''))
            : [ctx.m.invalid];
      return send(reply, usersPage(ctx, await users.list(), await payreq.repos.tenants.list(), issues), 422);
    }
  });

  control.get('/users/:username', async (request, reply) => {
    const name = normaliseUsername((request.params as { username: string }).username);
    const found = (await users.list()).find((u) => u.username === name);
    if (!found) throw controlNotFound();
    const [state, sessions] = await Promise.all([
      twoFactor(payreq.repos, payreq.secretKeys).state(found.id),
      userSessions(payreq.repos, found.id, control.controlNow(), request.session.sessionId),
    ]);
    const ctx = await pageContext(request, reply);
    return send(reply, userPage(ctx, { user: found, twoFactor: state.state, sessions }));
  });

  // Disable, enable, end every session, reset the second factor (a lost phone): each audited.
  control.post('/users/:username/:action', async (request, reply) => {
    const { username, action } = request.params as { username: string; action: string };
    if (!USER_ACTIONS.has(action)) throw controlNotFound();
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
      const text =
        action === 'end-sessions'
          ? ACCOUNT_MESSAGES[ctx.language].sessionsEndedFor(done.user.username, done.ended)
          : ACCOUNT_MESSAGES[ctx.language].twoFactorResetFor(done.user.username);
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
  });

  control.get('/schedules', async (request, reply) => {
    const ctx = await pageContext(request, reply);
    const [schedules, runs] = await Promise.all([
      payreq.repos.schedules.list(),
      payreq.repos.schedules.runs(undefined, 30),
    ]);
    return send(reply, schedulesPage(ctx, schedules, runs));
  });

  control.post('/schedules/:job', async (request, reply) => {
    const current = await payreq.repos.schedules.get((request.params as { job: string }).job);
    if (!current) throw controlNotFound();
    const ctx = await pageContext(request, reply);
    const cron = (field(request.body, 'cron') ?? '').trim();
    const zoneField = SETTING_FIELDS.find((f) => f.name === 'timezone');
    const zone = zoneField ? parseSetting(zoneField, field(request.body, 'timezone') ?? '') : { problem: 'unknown' };
    const cronIssue = cronProblem(cron);
    if (cronIssue || 'problem' in zone) {
      const w = ADMIN_MESSAGES[ctx.language];
      const issues = [
        cronIssue ? `${w.cron}: ${cronIssue}` : '',
        'problem' in zone ? `${w.timezone}: ${zone.problem}` : '',
      ];
      await audit(request, { tenantId: null, action: 'schedule_changed', target: current.job, outcome: 'refused' });
      const [schedules, runs] = await Promise.all([
        payreq.repos.schedules.list(),
        payreq.repos.schedules.runs(undefined, 30),
      ]);
      return send(reply, schedulesPage(ctx, schedules, runs, issues.filter(Boolean)), 422);
    }
    const timezone = String(zone.value);
    const enabled = field(request.body, 'enabled') === 'on';
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
  });

  control.post('/schedules/:job/run', async (request, reply) => {
    const schedule = await payreq.repos.schedules.get((request.params as { job: string }).job);
    const job = schedule ? SCHEDULED_JOBS[schedule.job] : undefined;
    if (!schedule || !job) throw controlNotFound();
    const ctx = await pageContext(request, reply);
    const leaseSeconds = payreq.config.jobLeaseSeconds;
    const run = await payreq.repos.schedules.startManual(schedule.job, leaseSeconds);
    if (run) {
      const r = await runUnderLease(payreq.repos.schedules, schedule.job, run, leaseSeconds, () =>
        job(payreq, control.controlNow(), schedule.timezone),
      );
      await audit(request, {
        tenantId: null,
        action: 'job_run',
        target: schedule.job,
        outcome: r.outcome,
        detail: r.outcome === 'ok' ? r.counts : { error: r.error },
      });
      if (r.outcome === 'ok') flash(request, 'ok', `${ctx.m.done} ${JSON.stringify(r.counts)}`);
      else flash(request, 'error', `${ctx.m.error}: ${r.error}`);
    }
    return reply.redirect('/control/schedules', 303);
  });

  control.get('/audit', async (request, reply) => {
    const raw = request.query as Record<string, string | undefined>;
    const tenantId = tenantScope(request, raw.tenant);
    const ctx = await pageContext(request, reply);
    const query: AuditQuery = {
      action: raw.action?.trim() || undefined,
      username: raw.username?.trim().toLowerCase() || undefined,
      reference: raw.reference?.trim().slice(0, 100) || undefined,
      // Days as the hotel reads them: from its midnight, until the end of the "to" day.
      from: isIsoDate(raw.from) ? raw.from : undefined,
      to: isIsoDate(raw.to) ? raw.to : undefined,
    };
    const beforeId = raw.before && /^\d{1,18}$/.test(raw.before) ? raw.before : undefined;
    const rows = await payreq.repos.audit.list({
      tenantId,
      action: query.action,
      username: query.username,
      reference: query.reference,
      from: query.from ? midnightIn(query.from, ctx.timeZone) : undefined,
      before: query.to ? midnightIn(addDays(query.to, 1), ctx.timeZone) : undefined,
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
