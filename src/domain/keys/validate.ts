// Whether a public key may be added: readable, of an allowed technology and size (the settings'
// *_key_restriction), not expired (the reference's Key model validations and SshKeyValidator).
import type { Container } from '../context.js';
import { validation, type ValidationMessages } from '../errors.js';
import { getSettings } from '../settings/service.js';
import { nowIso } from '../../shared/time.js';
import { parsePublicKey, TECHNOLOGIES, type PublicKey, type Technology } from './public_key.js';

/** A restriction of -1 forbids a technology; 0 leaves its size free (beyond Anvil's floor). */
const FORBIDDEN = -1;
/** Sizes below these are refused whatever the settings say (RSA keys of 1024 bits are breakable). */
const FLOOR: Partial<Record<Technology, number>> = { rsa: 2048 };

const sentence = (items: string[]): string =>
  items.length <= 2 ? items.join(' or ') : `${items.slice(0, -1).join(', ')}, or ${items[items.length - 1]}`;

async function restrictions(c: Container): Promise<Record<Technology, number>> {
  const s = (await getSettings(c)) as unknown as Record<string, number>;
  return Object.fromEntries(TECHNOLOGIES.map((t) => [t, Number(s[`${t}_key_restriction`] ?? 0)])) as Record<Technology, number>;
}

/** Why the settings refuse this key now; null when they allow it (also checked at each use). */
export async function restrictionError(c: Container, key: PublicKey): Promise<string | null> {
  const r = await restrictions(c);
  const min = r[key.technology];
  if (min === FORBIDDEN) {
    const allowed = TECHNOLOGIES.filter((t) => r[t] !== FORBIDDEN).map((t) => t.toUpperCase());
    return `type is forbidden. Must be ${sentence(allowed)}`;
  }
  const least = Math.max(min, FLOOR[key.technology] ?? 0);
  if (key.bits < least) return `must be at least ${least} bits`;
  return null;
}

/** The key of a new key's text, else the reference's validation error (400). */
export async function validateNewKey(c: Container, text: string, expiresAt: string | null): Promise<PublicKey> {
  const errors: ValidationMessages = {};
  const key = parsePublicKey(text);
  if (!key) {
    errors.key = ['is invalid'];
    errors.fingerprint_sha256 = ['cannot be generated'];
    throw validation(errors);
  }
  const refused = await restrictionError(c, key);
  if (refused) errors.key = [refused];
  if (expiresAt !== null && expiresAt <= nowIso()) errors.key = [...((errors.key as string[] | undefined) ?? []), 'has expired'];
  if (Object.keys(errors).length) throw validation(errors);
  return key;
}
