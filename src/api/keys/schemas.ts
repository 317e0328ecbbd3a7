import { Type as T } from '@sinclair/typebox';
import { ProjectIdentity } from '../projects/schemas.js';
import { UserPublic } from '../users/schemas.js';
import { Nullable, Timestamp } from '../schemas.js';

// The reference's SSHKey, SSHKeyWithUser, DeployKey and DeployKeysProject entities.

const sshKeyFields = {
  id: T.Integer(),
  title: T.String(),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp),
  key: T.String(),
  usage_type: T.String(),
};

export const SshKey = T.Object(sshKeyFields);

export const SshKeyWithUser = T.Object({ ...sshKeyFields, user: Nullable(UserPublic) });

const deployKeyFields = {
  ...sshKeyFields,
  fingerprint: T.String(),
  fingerprint_sha256: T.String(),
};

export const DeployKey = T.Object(deployKeyFields);

/** GET /deploy_keys: each key with the projects it may push to. */
export const InstanceDeployKey = T.Object({ ...deployKeyFields, projects_with_write_access: T.Array(ProjectIdentity) });

/** A deploy key as a project has it: the key, and whether it may push there. */
export const DeployKeysProject = T.Object({ ...deployKeyFields, can_push: T.Boolean() });
