import { route } from '../../http/route.js';
import { presentUserBasic } from './present.js';
import { UserBasic } from './schemas.js';

const USER_SCOPES = ['api', 'read_api', 'read_user'];

export const userRoutes = [
  route({
    method: 'GET',
    path: '/user',
    tag: 'users',
    summary: 'The authenticated user',
    scopes: USER_SCOPES,
    response: UserBasic,
    handler: async ({ c, actor }) => presentUserBasic(c, actor!.user),
  }),
];
