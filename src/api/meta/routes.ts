import { Type as T } from '@sinclair/typebox';
import { route } from '../../http/route.js';
import { ANVIL_REVISION, REFERENCE_API_LEVEL } from '../../version.js';

export const metaRoutes = [
  route({
    method: 'GET',
    path: '/version',
    tag: 'meta',
    summary: 'API level and Anvil revision',
    response: T.Object({ version: T.String(), revision: T.String() }),
    handler: async () => ({ version: REFERENCE_API_LEVEL, revision: ANVIL_REVISION }),
  }),
];
