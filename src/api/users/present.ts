import type { Static } from '@sinclair/typebox';
import type { Container } from '../../container.js';
import type { UserRow } from '../../db/repos/users.js';
import type { UserBasic } from './schemas.js';

export function avatarUrl(c: Container, u: UserRow): string | null {
  return u.avatar_path ? `${c.config.externalUrl}/uploads/-/system/user/avatar/${u.id}/${u.avatar_path}` : null;
}

export function presentUserBasic(c: Container, u: UserRow): Static<typeof UserBasic> {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    avatar_url: avatarUrl(c, u),
    web_url: `${c.config.externalUrl}/${u.username}`,
  };
}
