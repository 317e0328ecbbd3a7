import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { DeployKeyLink, KeyRow } from '../../db/repos/keys.js';
import type { InstanceDeployKeyView } from '../../domain/keys/deploy_keys.js';
import { publishableKey, type KeyView } from '../../domain/keys/service.js';
import { presentUser } from '../users/present.js';
import type { DeployKey, DeployKeysProject, InstanceDeployKey, SshKey, SshKeyWithUser } from './schemas.js';

/** A user's key: its comment replaced by the owner's name and the host (the reference's publishable_key). */
export const presentSshKey = (c: Container, v: KeyView): Static<typeof SshKey> => ({
  id: v.row.id,
  title: v.row.title,
  created_at: v.row.created_at,
  expires_at: v.row.expires_at,
  key: v.row.type === 'Key' ? publishableKey(v.row, v.owner, c.config.externalHostname) : v.row.key,
  usage_type: v.row.usage_type,
});

export const presentSshKeyWithUser = (c: Container, v: KeyView): Static<typeof SshKeyWithUser> => ({
  ...presentSshKey(c, v),
  user: v.owner ? (presentUser(c, { user: v.owner, form: 'self', profileVisible: true, viewerSignedIn: true, highestRole: 0 }) as Static<typeof SshKeyWithUser>['user']) : null,
});

export const presentDeployKey = (row: KeyRow): Static<typeof DeployKey> => ({
  id: row.id,
  title: row.title,
  created_at: row.created_at,
  expires_at: row.expires_at,
  key: row.key,
  usage_type: row.usage_type,
  fingerprint: row.fingerprint,
  fingerprint_sha256: `SHA256:${row.fingerprint_sha256}`,
});

export const presentDeployKeysProject = (link: DeployKeyLink): Static<typeof DeployKeysProject> => ({ ...presentDeployKey(link), can_push: link.can_push === 1 });

export const presentInstanceDeployKey = (v: InstanceDeployKeyView): Static<typeof InstanceDeployKey> => ({
  ...presentDeployKey(v.row),
  projects_with_write_access: v.projectsWithWriteAccess.map((p) => ({
    id: p.row.id,
    description: p.row.description,
    name: p.row.name,
    name_with_namespace: p.nameWithNamespace,
    path: p.row.path,
    path_with_namespace: p.row.full_path,
    created_at: p.row.created_at,
  })),
});
