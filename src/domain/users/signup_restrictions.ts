// The instance's sign-up restrictions on e-mail domains (`domain_allowlist`, `domain_denylist`
// with `domain_denylist_enabled`), in the reference's RestrictedSignup words. Entries may use `*`
// wildcards and match the whole domain, case-insensitively. A domain on the allowlist is accepted
// even if it is also denied.
import type { Container } from '../context.js';
import { getSettings } from '../settings/service.js';

function domainMatches(patterns: readonly string[], email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return patterns.some((p) => {
    const re = p.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?');
    return new RegExp(`^${re}$`, 'i').test(domain);
  });
}

/** The e-mail's validation message under the current restrictions, or null when it is allowed. */
export async function emailDomainError(c: Container, email: string): Promise<string | null> {
  const s = await getSettings(c);
  const allow = (s.domain_allowlist ?? []).filter((d) => d.trim() !== '');
  if (allow.length > 0) return domainMatches(allow, email) ? null : 'domain is not authorized for sign-up.';
  const deny = (s.domain_denylist ?? []).filter((d) => d.trim() !== '');
  if (s.domain_denylist_enabled && deny.length > 0 && domainMatches(deny, email)) return 'is not from an allowed domain.';
  return null;
}
