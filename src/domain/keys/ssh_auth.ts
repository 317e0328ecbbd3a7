// Who a key offered over SSH acts as. The key is found by its fingerprint; whether it may still
// be used (expiry, the settings' restrictions, a blocked owner) is decided when it runs a
// command, so that the client is told why (the reference's GitAccess actor checks).
import type { Container } from '../context.js';
import { findKeyBySha256, touchKey, type KeyRow } from '../../db/repos/keys.js';
import { findUserById } from '../../db/repos/users.js';
import { nowIso, addSeconds } from '../../shared/time.js';
import { isBlocked, type Actor } from '../auth/actor.js';
import { forbidden } from '../errors.js';
import { parsePublicKey, sha256Of } from './public_key.js';
import { restrictionError } from './validate.js';

/** The key with this blob that may sign in (a key for signing only may not); undefined for none. */
export async function keyForSignIn(c: Container, blob: Buffer): Promise<KeyRow | undefined> {
  const key = await findKeyBySha256(c.db, sha256Of(blob));
  return key && key.usage_type !== 'signing' ? key : undefined;
}

/** The actor of a signed-in key, or the refusal its owner is shown (403 kinds with the reference's messages). */
export async function sshActor(c: Container, key: KeyRow): Promise<Actor> {
  const now = nowIso();
  if (key.expires_at !== null && key.expires_at <= now) throw forbidden('Your SSH key has expired.');
  const parsed = parsePublicKey(key.key);
  const restricted = parsed ? await restrictionError(c, parsed) : 'is invalid';
  if (restricted) throw forbidden(`Your SSH key ${restricted}.`);
  const user = key.user_id === null ? undefined : await findUserById(c.db, key.user_id);
  if (!user) throw forbidden('The command you\'re trying to execute is not allowed.');
  if (isBlocked(user)) throw forbidden('Your account has been blocked.');
  await touchKey(c.db, key.id, now, addSeconds(now, -60));
  const actor: Actor = { user, via: 'ssh_key', scopes: null, tokenId: null, sudoer: null };
  return key.type === 'DeployKey' ? { ...actor, deployKey: { id: key.id } } : actor;
}
