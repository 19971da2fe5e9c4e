/**
 * Headers for every guest page. The page ships no script of its own, so the policy forbids every
 * source but our own stylesheet and images, and lets forms go only to us and to the provider
 * (the card form posts to it; its redirect back lands on PUBLIC_BASE_URL, which browsers also
 * check against form-action).
 */
export function contentSecurityPolicy(formTargets: readonly string[]): string {
  const targets = [...new Set(["'self'", ...formTargets])];
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action ${targets.join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * The payment page of a provider whose own script draws the card form (Lyra's embedded form):
 * the strict policy, widened for that provider's static host only, for what its script needs
 * (its script and theme, the frames holding the card fields, their connections, styles, images
 * and fonts). Still no inline script and no other host; forms still go only to us, where the
 * script sends the guest's browser back.
 */
export function embeddedFormPolicy(staticOrigin: string, formTargets: readonly string[]): string {
  const targets = [...new Set(["'self'", ...formTargets])];
  return [
    "default-src 'none'",
    `script-src ${staticOrigin}`,
    `style-src 'self' ${staticOrigin}`,
    `img-src 'self' data: ${staticOrigin}`,
    `font-src ${staticOrigin}`,
    `frame-src ${staticOrigin}`,
    `connect-src ${staticOrigin}`,
    `form-action ${targets.join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The origin of an absolute or relative URL, resolved against the public base; undefined if unusable. */
export function originOf(url: string, base: string): string | undefined {
  try {
    const origin = new URL(url, base).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};
