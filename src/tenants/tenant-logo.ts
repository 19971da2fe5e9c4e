import { createHash } from 'node:crypto';
import type { Repositories } from '../db/index.ts';
import { errors } from '../domain/index.ts';
import { findTenant, tenantNotFound } from './tenant-settings.ts';

/** A logo is shown at most a few rem high: 200 kB is plenty for a PNG, JPEG or WebP of it. */
export const MAX_LOGO_BYTES = 200 * 1024;

export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface CheckedLogo {
  bytes: Buffer;
  type: LogoType;
  /** SHA-256 of the bytes, hex: the logo's name in its URL. */
  hash: string;
}

const startsWith = (bytes: Buffer, signature: readonly number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);

/**
 * The type from the first bytes, never from a file name or a declared type: what the browser
 * would sniff is what we check. PNG, JPEG and WebP only. SVG is refused rather than sanitised:
 * it is XML that can carry scripts, links and external references, and a sanitiser is a
 * moving target; a raster logo has none of that.
 */
export function sniffLogoType(bytes: Buffer): LogoType | 'svg' | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  // RIFF....WEBP
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) {
    return 'image/webp';
  }
  const head = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<') && head.includes('<svg')) return 'svg';
  return undefined;
}

/** The logo as it will be stored, or what is wrong with it (the words of the CLI and the back office alike). */
export function checkLogo(bytes: Buffer): CheckedLogo | { problem: string } {
  if (bytes.length === 0) return { problem: 'the file is empty' };
  // No exact size: the back office stops reading one byte past the limit, so it cannot know it.
  if (bytes.length > MAX_LOGO_BYTES)
    return { problem: `the file is larger than ${MAX_LOGO_BYTES / 1024} kB, the most a logo may be` };
  const type = sniffLogoType(bytes);
  if (type === 'svg') {
    return { problem: 'SVG is not accepted (it can carry scripts); export the logo as PNG, JPEG or WebP' };
  }
  if (!type) return { problem: 'the file is not a PNG, JPEG or WebP image' };
  return { bytes, type, hash: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Checks and stores a tenant's logo (422 `validation_failed` on field `logo`, nothing written),
 * or removes it with `null`. Returns whether it changed.
 */
export async function setTenantLogo(repos: Repositories, tenantId: string, bytes: Buffer | null) {
  const before = await findTenant(repos, tenantId);
  if (bytes === null) {
    const after = await repos.tenants.setLogo(tenantId, null);
    if (!after) throw tenantNotFound(tenantId);
    return { before, after, changed: before.logo_hash !== null };
  }
  const checked = checkLogo(bytes);
  if ('problem' in checked) throw errors.validation([{ field: 'logo', message: checked.problem }]);
  const after = await repos.tenants.setLogo(tenantId, checked);
  if (!after) throw tenantNotFound(tenantId);
  return { before, after, changed: before.logo_hash !== checked.hash };
}
