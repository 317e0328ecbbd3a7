// Users' SSH keys: a user's own (/user/keys), any user's as the public sees them or an admin
// manages them (/users/:id/keys), and lookups by id or fingerprint for admins (/keys). A key's
// fingerprint names one key instance-wide: one user per key, and never a user's and a deploy key.
import type { Container } from '../context.js';
import {
  authKeysOfUser, deleteKey, findKeyById, findKeyByMd5, findKeyBySha256, insertKey, pageUserKeys, type KeyRow,
} from '../../db/repos/keys.js';
import { findUserById, findUserByIdOrUsername, findUserByUsername, type UserRow } from '../../db/repos/users.js';
import { inTransaction } from '../../db/transaction.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { requireAdmin, type Actor } from '../auth/actor.js';
import { apiError, invalidParams, notFound, validation } from '../errors.js';
import { keySystemEvent } from '../hooks/events.js';
import { canReadProfile } from '../users/policy.js';
import { validateNewKey } from './validate.js';

export const USAGE_TYPES = ['auth', 'signing', 'auth_and_signing'] as const;
export type UsageType = (typeof USAGE_TYPES)[number];

export interface NewKeyInput {
  title: string;
  key: string;
  expires_at?: string | null;
  usage_type?: UsageType;
}

/** A key with its owner: what presenting it needs. */
export interface KeyView {
  row: KeyRow;
  owner: UserRow | null;
}

const keyNotFound = () => notFound('Key');

/** `expires_at` as given (an ISO date or time), as a stored instant; 400 for anything else. */
export function expiryOf(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(t)) throw invalidParams('expires_at is invalid');
  return new Date(t).toISOString();
}

/** Adds a key to `owner` (its owner's own or an admin's request), and tells the system hooks. */
async function addKey(c: Container, owner: UserRow, input: NewKeyInput): Promise<KeyView> {
  const expiresAt = expiryOf(input.expires_at);
  const parsed = await validateNewKey(c, input.key, expiresAt);
  const at = nowIso();
  const row = await inTransaction(c.db, async (tx) => {
    const inserted = await insertKey(tx, {
      user_id: owner.id,
      type: 'Key',
      title: input.title,
      key: input.key.trim(),
      fingerprint: parsed.md5,
      fingerprint_sha256: parsed.sha256,
      usage_type: input.usage_type ?? 'auth_and_signing',
      expires_at: expiresAt,
      last_used_at: null,
      created_at: at,
      updated_at: at,
    });
    if (!inserted) throw validation({ fingerprint_sha256: ['has already been taken'] });
    await keySystemEvent(c, tx, 'key_create', inserted, owner);
    return inserted;
  });
  return { row, owner };
}

async function removeKey(c: Container, row: KeyRow, owner: UserRow | null): Promise<void> {
  await inTransaction(c.db, async (tx) => {
    await deleteKey(tx, row.id);
    if (owner) await keySystemEvent(c, tx, 'key_destroy', row, owner);
  });
}

async function ownKey(c: Container, user: UserRow, keyId: number): Promise<KeyRow> {
  const row = await findKeyById(c.db, keyId, 'Key');
  if (!row || row.user_id !== user.id) throw keyNotFound();
  return row;
}

// ---- /user/keys

export async function listOwnKeys(c: Container, actor: Actor, page: PageRequest): Promise<PageResult<KeyView>> {
  const p = await pageUserKeys(c.db, actor.user.id, page);
  return { ...p, items: p.items.map((row) => ({ row, owner: actor.user })) };
}

export const getOwnKey = async (c: Container, actor: Actor, keyId: number): Promise<KeyView> => ({ row: await ownKey(c, actor.user, keyId), owner: actor.user });

export const addOwnKey = (c: Container, actor: Actor, input: NewKeyInput): Promise<KeyView> => addKey(c, actor.user, input);

export async function deleteOwnKey(c: Container, actor: Actor, keyId: number): Promise<void> {
  await removeKey(c, await ownKey(c, actor.user, keyId), actor.user);
}

// ---- /users/:id/keys

/** A user whose keys the caller may list (the public keys of a visible profile); else 404 User. */
async function visibleUser(c: Container, actor: Actor | null, idOrUsername: string | number): Promise<UserRow> {
  const user = await findUserByIdOrUsername(c.db, idOrUsername);
  if (!user || !canReadProfile(actor, user)) throw notFound('User');
  return user;
}

async function userForAdmin(c: Container, actor: Actor, userId: number): Promise<UserRow> {
  requireAdmin(actor);
  const user = await findUserById(c.db, userId);
  if (!user) throw notFound('User');
  return user;
}

export async function listUserKeys(c: Container, actor: Actor | null, idOrUsername: string | number, page: PageRequest): Promise<PageResult<KeyView>> {
  const user = await visibleUser(c, actor, idOrUsername);
  const p = await pageUserKeys(c.db, user.id, page);
  return { ...p, items: p.items.map((row) => ({ row, owner: user })) };
}

export async function getUserKey(c: Container, actor: Actor | null, idOrUsername: string | number, keyId: number): Promise<KeyView> {
  const user = await visibleUser(c, actor, idOrUsername);
  return { row: await ownKey(c, user, keyId), owner: user };
}

export const addUserKey = async (c: Container, actor: Actor, userId: number, input: NewKeyInput): Promise<KeyView> =>
  addKey(c, await userForAdmin(c, actor, userId), input);

export async function deleteUserKey(c: Container, actor: Actor, userId: number, keyId: number): Promise<void> {
  const user = await userForAdmin(c, actor, userId);
  await removeKey(c, await ownKey(c, user, keyId), user);
}

// ---- /keys

const withOwner = async (c: Container, row: KeyRow): Promise<KeyView> => ({ row, owner: row.user_id === null ? null : ((await findUserById(c.db, row.user_id)) ?? null) });

/** GET /keys/:id (admins): any key, a user's or a deploy key, with its owner. */
export async function getKey(c: Container, actor: Actor, id: number): Promise<KeyView> {
  requireAdmin(actor);
  const row = await findKeyById(c.db, id);
  if (!row) throw keyNotFound();
  return withOwner(c, row);
}

const MD5 = /^(?:MD5:)?((?:[0-9a-f]{2}:){15}[0-9a-f]{2})$/i;

/** GET /keys?fingerprint= (admins): by `SHA256:…` or an MD5 fingerprint (hex pairs, `MD5:` optional). */
export async function findKeyByFingerprint(c: Container, actor: Actor, fingerprint: string): Promise<KeyView> {
  requireAdmin(actor);
  let row: KeyRow | undefined;
  const md5 = MD5.exec(fingerprint);
  if (fingerprint.startsWith('SHA256:')) row = await findKeyBySha256(c.db, fingerprint.slice('SHA256:'.length).replace(/=+$/, ''));
  else if (md5) row = await findKeyByMd5(c.db, md5[1]!.toLowerCase());
  else throw apiError('Failed to return the key', 400);
  if (!row) throw keyNotFound();
  return withOwner(c, row);
}

/** How many keys `/<username>.keys` lists at most. */
const KEYS_TEXT_LIMIT = 1000;

/** `GET /<username>.keys`: the user's keys that sign in, one a line; null for no such user. */
export async function userKeysText(c: Container, actor: Actor | null, username: string): Promise<string | null> {
  const user = await findUserByUsername(c.db, username);
  if (!user || !canReadProfile(actor, user)) return null;
  const keys = await authKeysOfUser(c.db, user.id, nowIso(), KEYS_TEXT_LIMIT);
  return keys.map((k) => publishableKey(k, user, c.config.externalHostname)).join('\n');
}

/** The key as the API shows a user's key: its comment replaced by the owner's name and the host (no e-mail leaks). */
export const publishableKey = (row: KeyRow, owner: UserRow | null, host: string): string =>
  owner ? `${row.key.split(/\s+/).slice(0, 2).join(' ')} ${owner.name} (${host})` : row.key;
