// An OpenSSH public key line (`type base64 [comment]`) read without any SSH library: its
// technology, size in bits and fingerprints, as the reference's Gitlab::SSHPublicKey reads them.
import crypto from 'node:crypto';

/** The reference's key technologies, in its order (the order of "Must be …" messages). */
export const TECHNOLOGIES = ['rsa', 'dsa', 'ecdsa', 'ed25519', 'ecdsa_sk', 'ed25519_sk'] as const;
export type Technology = (typeof TECHNOLOGIES)[number];

const TYPES: Record<string, Technology> = {
  'ssh-rsa': 'rsa',
  'ssh-dss': 'dsa',
  'ecdsa-sha2-nistp256': 'ecdsa',
  'ecdsa-sha2-nistp384': 'ecdsa',
  'ecdsa-sha2-nistp521': 'ecdsa',
  'ssh-ed25519': 'ed25519',
  'sk-ecdsa-sha2-nistp256@openssh.com': 'ecdsa_sk',
  'sk-ssh-ed25519@openssh.com': 'ed25519_sk',
};

export interface PublicKey {
  /** The wire name (`ssh-ed25519`). */
  type: string;
  technology: Technology;
  bits: number;
  /** The key's blob as sent in SSH authentication. */
  blob: Buffer;
  /** `type base64`, without the comment. */
  text: string;
  /** MD5 of the blob as hex pairs (`4a:9d:…`). */
  md5: string;
  /** SHA-256 of the blob in base64 without padding (no `SHA256:` prefix). */
  sha256: string;
}

/** SSH wire strings: a 4-byte length, then the bytes. */
function readStrings(blob: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) throw new Error('truncated');
    const n = blob.readUInt32BE(at);
    if (at + 4 + n > blob.length) throw new Error('truncated');
    out.push(blob.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

/** Bits of an mpint (leading zero bytes do not count). */
function mpintBits(b: Buffer): number {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  if (i === b.length) return 0;
  return (b.length - i - 1) * 8 + (32 - Math.clz32(b[i]!));
}

export const md5Of = (blob: Buffer): string => crypto.createHash('md5').update(blob).digest('hex').match(/../g)!.join(':');
export const sha256Of = (blob: Buffer): string => crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');

/** The key of an OpenSSH public key line; null when it is not one (or is a private key). */
export function parsePublicKey(line: string): PublicKey | null {
  const parts = line.trim().split(/\s+/);
  if (parts.length < 2) return null;
  const technology = TYPES[parts[0]!];
  if (!technology || !/^[A-Za-z0-9+/]+={0,2}$/.test(parts[1]!)) return null;
  const blob = Buffer.from(parts[1]!, 'base64');
  let fields: Buffer[];
  try {
    fields = readStrings(blob);
  } catch {
    return null;
  }
  if (fields[0]?.toString('latin1') !== parts[0]) return null;
  const bits = bitsOf(technology, parts[0]!, fields);
  if (bits === null) return null;
  return { type: parts[0]!, technology, bits, blob, text: `${parts[0]} ${parts[1]}`, md5: md5Of(blob), sha256: sha256Of(blob) };
}

/** A key's size as the reference counts it; null for a malformed key. */
function bitsOf(technology: Technology, type: string, f: Buffer[]): number | null {
  switch (technology) {
    case 'rsa':
      return f.length === 3 ? mpintBits(f[2]!) : null; // e, n
    case 'dsa':
      return f.length === 5 ? mpintBits(f[1]!) : null; // p, q, g, y
    case 'ecdsa':
    case 'ecdsa_sk': {
      const curve = f[1]?.toString('latin1');
      if (!curve || !type.includes(curve)) return null;
      return { nistp256: 256, nistp384: 384, nistp521: 521 }[curve] ?? null;
    }
    case 'ed25519':
    case 'ed25519_sk':
      return f[1]?.length === 32 ? 256 : null;
  }
}
