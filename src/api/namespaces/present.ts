import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { NamespaceView } from '../../domain/namespaces/service.js';
import { groupAvatarUrl, groupWebUrl } from '../groups/present.js';
import { avatarUrl } from '../users/present.js';
import type { Namespace } from './schemas.js';

export function presentNamespace(c: Container, v: NamespaceView): Static<typeof Namespace> {
  const n = v.row;
  const isGroup = n.kind === 'group';
  return {
    id: n.id,
    name: n.name,
    path: n.path,
    kind: n.kind,
    full_path: n.full_path,
    parent_id: n.parent_id,
    avatar_url: isGroup ? groupAvatarUrl(c, n) : v.owner ? avatarUrl(c, v.owner) : null,
    web_url: isGroup ? groupWebUrl(c, n) : `${c.config.externalUrl}/${v.owner?.username ?? n.path}`,
    ...(v.membersCountWithDescendants !== null ? { members_count_with_descendants: v.membersCountWithDescendants } : {}),
  };
}
