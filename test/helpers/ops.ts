// Routes that exist only in the operations tests: a path parameter, a body, a list — shapes the
// route registry may hold, so that metrics labels and the OpenAPI document can be checked on them.
import { Type as T } from '@sinclair/typebox';
import { route, type ApiRoute } from '../../src/http/route.js';
import { CommaList, Nullable, OneOf } from '../../src/api/schemas.js';

const Item = T.Object({ id: T.Integer(), name: T.String(), note: Nullable(T.String()), kind: T.Union([T.Literal('a'), T.Literal('b')]) });

export const opsTestRoutes: ApiRoute<any>[] = [
  route({
    method: 'GET',
    path: '/ops-test/:id/items/:item_id',
    tag: 'ops-test',
    summary: 'One item',
    params: T.Object({ id: T.Integer(), item_id: T.Integer(), with_note: T.Optional(T.Boolean()) }),
    response: Item,
    handler: async ({ input }) => ({ id: input.item_id, name: `item of ${input.id}`, note: null, kind: 'a' }),
  }),
  route({
    method: 'GET',
    path: '/ops-test/:id/items',
    tag: 'ops-test',
    summary: 'A list of items',
    auth: 'optional',
    paginated: true,
    params: T.Object({ id: T.Integer(), order_by: T.Optional(OneOf(['id', 'name'])), labels: T.Optional(CommaList(T.String())) }),
    response: Item,
    handler: async () => ({ items: [{ id: 1, name: 'one', note: 'n', kind: 'b' }], total: 1, hasNext: false }),
  }),
  route({
    method: 'POST',
    path: '/ops-test/:id/items',
    tag: 'ops-test',
    summary: 'Create an item',
    params: T.Object({ id: T.Integer(), name: T.String(), note: T.Optional(T.String()) }),
    response: Item,
    handler: async ({ input }) => ({ id: 7, name: input.name, note: input.note ?? null, kind: 'a' }),
  }),
  route({
    method: 'DELETE',
    path: '/ops-test/:id/items/:item_id',
    tag: 'ops-test',
    summary: 'Delete an item',
    status: 204,
    params: T.Object({ id: T.Integer(), item_id: T.Integer() }),
    handler: async () => undefined,
  }),
];
