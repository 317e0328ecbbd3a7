import { Type as T } from '@sinclair/typebox';
import { route } from '../../http/route.js';
import { getNamespace, listNamespaces, namespaceExists } from '../../domain/namespaces/service.js';
import { mapPage } from '../../shared/page.js';
import { presentNamespace } from './present.js';
import { ListNamespacesParams, Namespace, NamespaceExists, NamespaceIdParam } from './schemas.js';

const tag = 'namespaces';

export const namespaceRoutes = [
  route({
    method: 'GET',
    path: '/namespaces',
    tag,
    summary: "The caller's namespaces (all for admins)",
    params: T.Object(ListNamespacesParams),
    paginated: true,
    response: Namespace,
    handler: async ({ c, actor, input, page }) => mapPage(await listNamespaces(c, actor, input, page), (n) => presentNamespace(c, n)),
  }),
  route({
    method: 'GET',
    path: '/namespaces/:id',
    tag,
    summary: 'A namespace by id or full path',
    params: T.Object(NamespaceIdParam),
    response: Namespace,
    handler: async ({ c, actor, input }) => presentNamespace(c, await getNamespace(c, actor, input.id)),
  }),
  route({
    method: 'GET',
    path: '/namespaces/:namespace/exists',
    tag,
    summary: 'Whether a namespace path is taken',
    params: T.Object({ namespace: T.String(), parent_id: T.Optional(T.Integer()) }),
    response: NamespaceExists,
    handler: async ({ c, input }) => namespaceExists(c, input.namespace, input.parent_id ?? null),
  }),
];
