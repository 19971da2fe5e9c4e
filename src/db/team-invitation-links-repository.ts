import { randomUUID } from 'node:crypto';
import type { TenantRole } from './admin-users-repository.ts';
import type { Queryable } from './database.ts';

/** How many taken usernames one link may be refused before it is spent (see names_refused). */
export const NAMES_REFUSED_PER_LINK = 5;

/** What the e-mail of an invitation is rendered from (the outbox row's payload). */
export interface InvitationMailPayload {
  to: string;
  /** The link's secret: only its hash is in team_invitation_links. */
  token: string;
  role: TenantRole;
  language: 'en' | 'fr' | 'de';
  invited_by: string | null;
  expires_at: string;
}

/** A link as the join page shows it. */
export interface InvitationLinkRow {
  id: string;
  tenant_id: string;
  tenant_name: string;
  email: string;
  role: TenantRole;
  invited_by: string | null;
  expires_at: Date;
}

/** Invitations by e-mail: written by a hotel's manager, used once by whoever reads the mailbox. */
export function teamInvitationLinksRepository(db: Queryable) {
  return {
    /**
     * A new link for `email` at the tenant, and its e-mail in the outbox, in one statement. An
     * earlier link of the same hotel to the same address that is still open is spent: the
     * newest invitation is the one that counts.
     */
    async invite(i: {
      tenantId: string;
      email: string;
      role: TenantRole;
      tokenHash: string;
      expiresAt: Date;
      mail: InvitationMailPayload;
    }): Promise<void> {
      const id = randomUUID();
      await db.query(
        `WITH spent AS (
           UPDATE team_invitation_links SET used_at = now()
            WHERE tenant_id = $2 AND email = $3 AND used_at IS NULL
         ), link AS (
           INSERT INTO team_invitation_links (id, tenant_id, email, role, token_hash, invited_by, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id
         )
         INSERT INTO email_outbox (tenant_id, kind, cause, payload)
         SELECT $2, 'team_invitation', 'team_invitation:' || link.id, $8::jsonb FROM link`,
        [id, i.tenantId, i.email, i.role, i.tokenHash, i.mail.invited_by, i.expiresAt, JSON.stringify(i.mail)],
      );
    },

    /** The link of that hash while it may still be used (not used, not expired); else undefined. */
    async open(tokenHash: string, now: Date): Promise<InvitationLinkRow | undefined> {
      const r = await db.query<InvitationLinkRow>(
        `SELECT l.id::text, l.tenant_id::text, t.name AS tenant_name, l.email, l.role, l.invited_by, l.expires_at
           FROM team_invitation_links l JOIN tenants t ON t.id = l.tenant_id
          WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2`,
        [tokenHash, now],
      );
      return r.rows[0];
    },

    /**
     * Takes the link for one use: of two uses at once, one gets it (the other undefined, as for a
     * link used, expired or unknown). Given back with `release` if the use then fails.
     */
    async claim(tokenHash: string, now: Date): Promise<InvitationLinkRow | undefined> {
      const r = await db.query<InvitationLinkRow>(
        `WITH taken AS (
           UPDATE team_invitation_links SET used_at = $2
            WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
           RETURNING id, tenant_id, email, role, invited_by, expires_at
         )
         SELECT taken.id::text, taken.tenant_id::text, t.name AS tenant_name, taken.email, taken.role,
                taken.invited_by, taken.expires_at
           FROM taken JOIN tenants t ON t.id = taken.tenant_id`,
        [tokenHash, now],
      );
      return r.rows[0];
    },

    /** The use succeeded: who used it (the new account, or the user who accepted). */
    async usedBy(id: string, userId: string): Promise<void> {
      await db.query('UPDATE team_invitation_links SET used_by = $2 WHERE id = $1', [id, userId]);
    },

    /**
     * The use failed (a password too short, a username taken): the link is open again, unless
     * this was one taken username too many. Returns whether it is still open.
     */
    async release(id: string, nameRefused: boolean): Promise<boolean> {
      const r = await db.query<{ open: boolean }>(
        `UPDATE team_invitation_links
            SET names_refused = names_refused + $2::int,
                used_at = CASE WHEN names_refused + $2::int >= $3 THEN used_at END
          WHERE id = $1 RETURNING used_at IS NULL AS open`,
        [id, nameRefused ? 1 : 0, NAMES_REFUSED_PER_LINK],
      );
      return r.rows[0]?.open ?? false;
    },
  };
}
export type TeamInvitationLinksRepository = ReturnType<typeof teamInvitationLinksRepository>;
