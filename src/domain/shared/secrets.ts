// Tokens and passwords: only digests are stored, only creation responses show a token.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

// crypto.hash (Node 20.12+) is the one-shot form, about twice as fast: every request digests its token.
export const digest = (secret: string): string =>
  crypto.hash ? crypto.hash('sha256', secret, 'hex') : crypto.createHash('sha256').update(secret).digest('hex');

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
export function randomToken(prefix: string, length = 20): string {
  const bytes = crypto.randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 63];
  return prefix + out;
}

// Passwords: PBKDF2-HMAC-SHA512 (the reference's FIPS scheme), with OWASP's iteration count. It runs on
// the thread pool, so a sign-in does not stall the event loop, and it needs no memory to speak of:
// scrypt's 16 MB block stayed in the allocator for good after the first few passwords. Digests
// written by earlier versions (scrypt) still verify.
const PBKDF2_ITERATIONS = 210_000;
const pbkdf2 = promisify(crypto.pbkdf2);

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await pbkdf2(password, salt, PBKDF2_ITERATIONS, 64, 'sha512');
  return `pbkdf2_sha512$${PBKDF2_ITERATIONS}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Whether `password` matches a stored digest; false for none or one in an unknown scheme. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$') ?? [];
  let expected: Buffer;
  let actual: Buffer;
  if (parts[0] === 'pbkdf2_sha512' && parts.length === 4) {
    const iterations = Number(parts[1]);
    if (!Number.isSafeInteger(iterations) || iterations < 1) return false;
    expected = Buffer.from(parts[3]!, 'base64');
    actual = await pbkdf2(password, Buffer.from(parts[2]!, 'base64'), iterations, expected.length, 'sha512');
  } else if (parts[0] === 'scrypt' && parts.length === 3) {
    expected = Buffer.from(parts[2]!, 'base64');
    actual = crypto.scryptSync(password, Buffer.from(parts[1]!, 'base64'), expected.length);
  } else return false;
  return expected.length > 0 && crypto.timingSafeEqual(expected, actual);
}
