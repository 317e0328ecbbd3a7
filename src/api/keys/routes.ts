// SSH keys: the caller's (/user/keys), any user's (/users/:id/keys; admins add and remove), admin
// lookups (/keys/:id, /keys?fingerprint=), and deploy keys (/projects/:id/deploy_keys, /deploy_keys).
import { Type as T } from '@sinclair/typebox';
import {
  addProjectDeployKey, enableDeployKey, getProjectDeployKey, listAllDeployKeys, listProjectDeployKeys, removeProjectDeployKey, updateProjectDeployKey,
} from '../../domain/keys/deploy_keys.js';
import {
  addOwnKey, addUserKey, deleteOwnKey, deleteUserKey, findKeyByFingerprint, getKey, getOwnKey, getUserKey, listOwnKeys, listUserKeys, USAGE_TYPES, userKeysText,
} from '../../domain/keys/service.js';
import { mapPage } from '../../shared/page.js';
import { Readable } from 'node:stream';
import { notFound } from '../../domain/errors.js';
import { USER_KEYS_PREFIX } from '../../http/project_urls.js';
import { FileBody, route } from '../../http/route.js';
import { IdOrPath, NotBlank, OneOf } from '../schemas.js';
import { presentDeployKey, presentDeployKeysProject, presentInstanceDeployKey, presentSshKey, presentSshKeyWithUser } from './present.js';
import { DeployKey, DeployKeysProject, InstanceDeployKey, SshKey, SshKeyWithUser } from './schemas.js';

const TAG = 'keys';
/** The reference lets a `read_user` token read the users API, keys too. */
const USER_READ_SCOPES = ['api', 'read_api', 'read_user'];

const newKeyParams = {
  title: NotBlank(T.String()),
  key: NotBlank(T.String()),
  expires_at: T.Optional(T.String()),
  usage_type: T.Optional(OneOf(USAGE_TYPES)),
};

export const keyRoutes = [
  route({
    method: 'GET',
    path: '/user/keys',
    tag: TAG,
    summary: "The caller's SSH keys",
    scopes: USER_READ_SCOPES,
    paginated: true,
    response: SshKey,
    handler: async ({ c, actor, page }) => mapPage(await listOwnKeys(c, actor, page), (v) => presentSshKey(c, v)),
  }),
  route({
    method: 'GET',
    path: '/user/keys/:key_id',
    tag: TAG,
    summary: 'One of the caller’s SSH keys',
    scopes: USER_READ_SCOPES,
    params: T.Object({ key_id: T.Integer() }),
    response: SshKey,
    handler: async ({ c, actor, input }) => presentSshKey(c, await getOwnKey(c, actor, input.key_id)),
  }),
  route({
    method: 'POST',
    path: '/user/keys',
    tag: TAG,
    summary: 'Add an SSH key for the caller',
    params: T.Object(newKeyParams),
    response: SshKey,
    handler: async ({ c, actor, input }) => presentSshKey(c, await addOwnKey(c, actor, input)),
  }),
  route({
    method: 'DELETE',
    path: '/user/keys/:key_id',
    tag: TAG,
    summary: 'Delete one of the caller’s SSH keys',
    params: T.Object({ key_id: T.Integer() }),
    status: 204,
    handler: async ({ c, actor, input }) => deleteOwnKey(c, actor, input.key_id),
  }),
  route({
    method: 'GET',
    path: '/users/:id/keys',
    tag: TAG,
    summary: "A user's SSH keys (by id or username)",
    auth: 'optional',
    scopes: USER_READ_SCOPES,
    paginated: true,
    params: T.Object({ id: IdOrPath }),
    response: SshKey,
    handler: async ({ c, actor, input, page }) => mapPage(await listUserKeys(c, actor, input.id, page), (v) => presentSshKey(c, v)),
  }),
  route({
    method: 'GET',
    path: '/users/:id/keys/:key_id',
    tag: TAG,
    summary: "One of a user's SSH keys",
    auth: 'optional',
    scopes: USER_READ_SCOPES,
    params: T.Object({ id: IdOrPath, key_id: T.Integer() }),
    response: SshKey,
    handler: async ({ c, actor, input }) => presentSshKey(c, await getUserKey(c, actor, input.id, input.key_id)),
  }),
  route({
    method: 'POST',
    path: '/users/:id/keys',
    tag: TAG,
    summary: 'Add an SSH key for a user (admins)',
    admin: true,
    params: T.Object({ id: T.Integer(), ...newKeyParams }),
    response: SshKey,
    handler: async ({ c, actor, input }) => {
      const { id, ...key } = input;
      return presentSshKey(c, await addUserKey(c, actor, id, key));
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/:id/keys/:key_id',
    tag: TAG,
    summary: "Delete a user's SSH key (admins)",
    admin: true,
    params: T.Object({ id: T.Integer(), key_id: T.Integer() }),
    status: 204,
    handler: async ({ c, actor, input }) => deleteUserKey(c, actor, input.id, input.key_id),
  }),
  route({
    method: 'GET',
    path: '/keys/:id',
    tag: TAG,
    summary: 'An SSH key with its owner (admins)',
    admin: true,
    params: T.Object({ id: T.Integer() }),
    response: SshKeyWithUser,
    handler: async ({ c, actor, input }) => presentSshKeyWithUser(c, await getKey(c, actor, input.id)),
  }),
  route({
    method: 'GET',
    path: '/keys',
    tag: TAG,
    summary: 'An SSH key by its fingerprint, SHA256 or MD5 (admins)',
    admin: true,
    params: T.Object({ fingerprint: T.String() }),
    response: SshKeyWithUser,
    handler: async ({ c, actor, input }) => presentSshKeyWithUser(c, await findKeyByFingerprint(c, actor, input.fingerprint)),
  }),

  route({
    method: 'GET',
    path: `${USER_KEYS_PREFIX}/:username`,
    outsideApi: true,
    tag: TAG,
    summary: "`/<username>.keys`: a user's SSH keys that sign in, as text, one a line",
    auth: 'optional',
    scopes: USER_READ_SCOPES,
    params: T.Object({ username: T.String() }),
    handler: async ({ c, actor, input }) => {
      const text = await userKeysText(c, actor, input.username);
      if (text === null) throw notFound();
      const body = Buffer.from(text);
      return new FileBody(Readable.from([body]), 'text/plain; charset=utf-8', body.length);
    },
  }),

  // ---- deploy keys
  route({
    method: 'GET',
    path: '/deploy_keys',
    tag: TAG,
    summary: 'Every deploy key, with the projects it may push to (admins)',
    admin: true,
    paginated: true,
    response: InstanceDeployKey,
    handler: async ({ c, actor, page }) => mapPage(await listAllDeployKeys(c, actor, page), presentInstanceDeployKey),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/deploy_keys',
    tag: TAG,
    summary: "A project's deploy keys (maintainers)",
    paginated: true,
    params: T.Object({ id: IdOrPath }),
    response: DeployKeysProject,
    handler: async ({ c, actor, input, page }) => mapPage(await listProjectDeployKeys(c, actor, input.id, page), presentDeployKeysProject),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/deploy_keys/:key_id',
    tag: TAG,
    summary: 'One deploy key of a project',
    params: T.Object({ id: IdOrPath, key_id: T.Integer() }),
    response: DeployKeysProject,
    handler: async ({ c, actor, input }) => presentDeployKeysProject(await getProjectDeployKey(c, actor, input.id, input.key_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/deploy_keys',
    tag: TAG,
    summary: 'Add a deploy key to a project (or enable the same key already known)',
    params: T.Object({
      id: IdOrPath,
      title: NotBlank(T.String()),
      key: NotBlank(T.String()),
      can_push: T.Optional(T.Boolean()),
      expires_at: T.Optional(T.String()),
    }),
    response: DeployKeysProject,
    handler: async ({ c, actor, input }) => {
      const { id, ...key } = input;
      return presentDeployKeysProject(await addProjectDeployKey(c, actor, id, key));
    },
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/deploy_keys/:key_id',
    tag: TAG,
    summary: "Change a deploy key's title or its write access to this project",
    params: T.Object({ id: IdOrPath, key_id: T.Integer(), title: T.Optional(T.String()), can_push: T.Optional(T.Boolean()) }),
    paramRules: { atLeastOneOf: [['title', 'can_push']] },
    response: DeployKeysProject,
    handler: async ({ c, actor, input }) => {
      const { id, key_id, ...change } = input;
      return presentDeployKeysProject(await updateProjectDeployKey(c, actor, id, key_id, change));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/deploy_keys/:key_id/enable',
    tag: TAG,
    summary: 'Enable for this project a deploy key the caller may use elsewhere',
    params: T.Object({ id: IdOrPath, key_id: T.Integer() }),
    response: DeployKey,
    handler: async ({ c, actor, input }) => presentDeployKey(await enableDeployKey(c, actor, input.id, input.key_id)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/deploy_keys/:key_id',
    tag: TAG,
    summary: 'Disable a deploy key for this project',
    params: T.Object({ id: IdOrPath, key_id: T.Integer() }),
    status: 204,
    handler: async ({ c, actor, input }) => removeProjectDeployKey(c, actor, input.id, input.key_id),
  }),
];
