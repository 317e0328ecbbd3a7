import { Type as T } from '@sinclair/typebox';
import { mapPage } from '../../shared/page.js';
import {
  activateUser,
  blockUser,
  createUser,
  currentUser,
  deactivateUser,
  deleteUser,
  getUser,
  listUsers,
  unblockUser,
  updateUser,
} from '../../domain/users/service.js';
import { route } from '../../http/route.js';
import { CustomAttributesFilterParam } from '../custom_attributes/schemas.js';
import { OneOf } from '../schemas.js';
import { presentUser, presentUserBasic } from './present.js';
import { CurrentUserResponse, ListedUserResponse, SingleUserResponse, StateChangeResponse, UserBasic, UserWithAdmin } from './schemas.js';

/** The reference lets a `read_user` token use every GET of its users API. */
const USER_SCOPES = ['api', 'read_api', 'read_user'];

/** `:id` is numeric; anything else is not a route here (404), as the reference's requirement has it. */
const USER_ID_PATH = '/users/:id(^\\d+$)';
const IdParam = { id: T.Integer() };

/** Attributes that create and update share (the reference's `optional_attributes`). */
const attributeParams = {
  skype: T.Optional(T.String()),
  linkedin: T.Optional(T.String()),
  twitter: T.Optional(T.String()),
  website_url: T.Optional(T.String()),
  organization: T.Optional(T.String()),
  job_title: T.Optional(T.String()),
  projects_limit: T.Optional(T.Integer()),
  bio: T.Optional(T.String()),
  location: T.Optional(T.String()),
  pronouns: T.Optional(T.String()),
  public_email: T.Optional(T.String()),
  commit_email: T.Optional(T.String()),
  admin: T.Optional(T.Boolean()),
  can_create_group: T.Optional(T.Boolean()),
  external: T.Optional(T.Boolean()),
  theme_id: T.Optional(T.Integer()),
  color_scheme_id: T.Optional(T.Integer()),
  private_profile: T.Optional(T.Boolean()),
  note: T.Optional(T.String()),
};

const stateChange = (action: string, summary: string, run: typeof blockUser) =>
  route({
    method: 'POST',
    path: `${USER_ID_PATH}/${action}`,
    admin: true,
    tag: 'users',
    summary,
    params: T.Object(IdParam),
    response: StateChangeResponse,
    handler: async ({ c, actor, input }) => run(c, actor, input.id),
  });

export const userRoutes = [
  route({
    method: 'GET',
    path: '/user',
    tag: 'users',
    summary: 'The authenticated user',
    scopes: USER_SCOPES,
    response: CurrentUserResponse,
    handler: async ({ c, actor }) => presentUser(c, currentUser(c, actor)),
  }),

  route({
    method: 'GET',
    path: '/users',
    tag: 'users',
    summary: 'List users (anonymous callers must give a username)',
    auth: 'optional',
    scopes: USER_SCOPES,
    paginated: true,
    params: T.Object({
      username: T.Optional(T.String()),
      extern_uid: T.Optional(T.String()),
      provider: T.Optional(T.String()),
      search: T.Optional(T.String()),
      active: T.Optional(T.Boolean()),
      external: T.Optional(T.Boolean()),
      exclude_external: T.Optional(T.Boolean()),
      blocked: T.Optional(T.Boolean()),
      created_after: T.Optional(T.String()),
      created_before: T.Optional(T.String()),
      exclude_internal: T.Optional(T.Boolean()),
      without_project_bots: T.Optional(T.Boolean()),
      admins: T.Optional(T.Boolean()),
      order_by: T.Optional(OneOf(['id', 'name', 'username', 'created_at', 'updated_at'] as const)),
      sort: T.Optional(OneOf(['asc', 'desc'] as const)),
      custom_attributes: CustomAttributesFilterParam,
      with_custom_attributes: T.Optional(T.Boolean()),
    }),
    response: ListedUserResponse,
    handler: async ({ c, actor, input, page }) =>
      mapPage(
        await listUsers(
          c,
          actor,
          {
            username: input.username,
            externUid: input.extern_uid,
            provider: input.provider,
            search: input.search,
            active: input.active,
            blocked: input.blocked,
            external: input.external,
            excludeExternal: input.exclude_external,
            excludeInternal: input.exclude_internal,
            withoutProjectBots: input.without_project_bots,
            admins: input.admins,
            createdAfter: input.created_after,
            createdBefore: input.created_before,
            orderBy: input.order_by,
            sort: input.sort,
            customAttributes: input.custom_attributes,
            withCustomAttributes: input.with_custom_attributes,
          },
          page,
        ),
        (v) => presentUser(c, v),
      ),
  }),

  route({
    method: 'GET',
    path: USER_ID_PATH,
    tag: 'users',
    summary: 'One user (admins see the admin details)',
    auth: 'optional',
    scopes: USER_SCOPES,
    params: T.Object({ ...IdParam, with_custom_attributes: T.Optional(T.Boolean()) }),
    response: SingleUserResponse,
    handler: async ({ c, actor, input }) => presentUser(c, await getUser(c, actor, input.id, { withCustomAttributes: input.with_custom_attributes })),
  }),

  route({
    method: 'POST',
    path: '/users',
    admin: true,
    tag: 'users',
    summary: 'Create a user (admin)',
    params: T.Object({
      email: T.String(),
      password: T.Optional(T.String()),
      reset_password: T.Optional(T.Boolean()),
      skip_confirmation: T.Optional(T.Boolean()),
      name: T.String(),
      username: T.String(),
      force_random_password: T.Optional(T.Boolean()),
      ...attributeParams,
    }),
    paramRules: { atLeastOneOf: [['password', 'reset_password', 'force_random_password']] },
    response: UserWithAdmin,
    handler: async ({ c, actor, input }) => presentUser(c, await createUser(c, actor, input)),
  }),

  route({
    method: 'PUT',
    path: USER_ID_PATH,
    admin: true,
    tag: 'users',
    summary: 'Update a user (admin)',
    params: T.Object({
      ...IdParam,
      email: T.Optional(T.String()),
      password: T.Optional(T.String()),
      skip_reconfirmation: T.Optional(T.Boolean()),
      name: T.Optional(T.String()),
      username: T.Optional(T.String()),
      ...attributeParams,
    }),
    response: UserWithAdmin,
    handler: async ({ c, actor, input }) => {
      const { id, skip_reconfirmation: _emailChangesAtOnce, ...attrs } = input;
      return presentUser(c, await updateUser(c, actor, id, attrs));
    },
  }),

  route({
    method: 'DELETE',
    path: USER_ID_PATH,
    admin: true,
    tag: 'users',
    summary: 'Delete a user (admin)',
    status: 204,
    params: T.Object({ ...IdParam, hard_delete: T.Optional(T.Boolean()) }),
    handler: async ({ c, actor, input, ifUnmodifiedSince }) =>
      deleteUser(c, actor, input.id, { hardDelete: input.hard_delete, ifUnmodifiedSince }),
  }),

  stateChange('block', 'Block a user (admin)', blockUser),
  stateChange('unblock', 'Unblock a user (admin)', unblockUser),
  stateChange('deactivate', 'Deactivate a user (admin)', deactivateUser),
  stateChange('activate', 'Activate a deactivated user (admin)', activateUser),

  // The web's user picker, at the reference web interface's own path (not part of /api/v4): it
  // matches parts of names from the first letter (the reference's use_minimum_char_limit: false),
  // where GET /users?search= does so only from 3 letters.
  route({
    method: 'GET',
    path: '/-/autocomplete/users.json',
    outsideApi: true,
    tag: 'users',
    summary: "The web interface's user picker (active users, any length of search)",
    scopes: USER_SCOPES,
    paginated: true,
    params: T.Object({ search: T.String() }),
    response: UserBasic,
    handler: async ({ c, actor, input, page }) =>
      mapPage(await listUsers(c, actor, { search: input.search, active: true, minimumCharLimit: false }, page), (v) => presentUserBasic(c, v.user)),
  }),
];
