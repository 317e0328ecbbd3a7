// Labels of projects and groups: list, get, create, change, delete, promote, subscribe.
import { Type as T, type TSchema } from '@sinclair/typebox';
import {
  changeLabel, createLabel, getLabel, listLabels, promoteLabel, removeLabel, subscribeLabel, type LabelInput, type LabelParentType,
} from '../../domain/labels/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath, NullClears } from '../schemas.js';
import { presentGroupLabel, presentProjectLabel } from './present.js';
import { GroupLabel, ProjectLabel } from './schemas.js';

const TAG = 'labels';

const changes = {
  new_name: T.Optional(T.String()),
  color: T.Optional(T.String()),
  description: T.Optional(T.String()),
};

function endpoints(type: LabelParentType) {
  const base = `/${type}s/:id/labels`;
  const isProject = type === 'project';
  const present = isProject ? presentProjectLabel : presentGroupLabel;
  const Entity = isProject ? ProjectLabel : GroupLabel;
  const priority: Record<string, TSchema> = isProject ? { priority: T.Optional(NullClears(T.Integer())) } : {};
  const changeRules = { atLeastOneOf: [isProject ? ['new_name', 'color', 'description', 'priority'] : ['new_name', 'color', 'description']] };
  const labelInput = (input: Record<string, unknown>): LabelInput => ({
    new_name: input.new_name as string | undefined,
    color: input.color as string | undefined,
    description: input.description as string | undefined,
    ...('priority' in input ? { priority: input.priority as number | null } : {}),
  });
  return [
    route({
      method: 'GET',
      path: base,
      tag: TAG,
      summary: isProject ? "A project's labels and those of its groups" : "A group's labels",
      params: T.Object({
        id: IdOrPath,
        with_counts: T.Optional(T.Boolean({ default: false })),
        include_ancestor_groups: T.Optional(T.Boolean({ default: true })),
        ...(isProject ? {} : { include_descendant_groups: T.Optional(T.Boolean({ default: false })), only_group_labels: T.Optional(T.Boolean({ default: true })) }),
        search: T.Optional(T.String()),
      }),
      response: Entity,
      paginated: true,
      handler: async ({ c, actor, input, page }) => {
        const { id, ...o } = input as typeof input & { include_descendant_groups?: boolean; only_group_labels?: boolean };
        return mapPage(await listLabels(c, actor, type, id, o, page), present);
      },
    }),
    route({
      method: 'GET',
      path: `${base}/:name`,
      tag: TAG,
      summary: 'One label, by id or title',
      params: T.Object({ id: IdOrPath, name: T.String(), include_ancestor_groups: T.Optional(T.Boolean({ default: true })) }),
      response: Entity,
      handler: async ({ c, actor, input }) => present(await getLabel(c, actor, type, input.id, input.name, input.include_ancestor_groups)),
    }),
    route({
      method: 'POST',
      path: base,
      tag: TAG,
      summary: `Create a ${type} label`,
      params: T.Object({ id: IdOrPath, name: T.String(), color: T.String(), description: T.Optional(T.String()), ...priority }),
      response: Entity,
      handler: async ({ c, actor, input }) => {
        const { id, ...rest } = input as typeof input & { priority?: number | null };
        return present(await createLabel(c, actor, type, id, rest));
      },
    }),
    route({
      method: 'PUT',
      path: base,
      tag: TAG,
      summary: 'Change a label named by label_id or name (deprecated form)',
      params: T.Object({ id: IdOrPath, label_id: T.Optional(T.Integer()), name: T.Optional(T.String()), ...changes, ...priority }),
      paramRules: { ...changeRules, exactlyOneOf: [['label_id', 'name']] },
      response: Entity,
      handler: async ({ c, actor, input }) => present(await changeLabel(c, actor, type, input.id, String(input.label_id ?? input.name), labelInput(input))),
    }),
    route({
      method: 'DELETE',
      path: base,
      tag: TAG,
      summary: 'Delete a label named by label_id or name (deprecated form)',
      params: T.Object({ id: IdOrPath, label_id: T.Optional(T.Integer()), name: T.Optional(T.String()) }),
      paramRules: { exactlyOneOf: [['label_id', 'name']] },
      status: 204,
      handler: async ({ c, actor, input }) => removeLabel(c, actor, type, input.id, String(input.label_id ?? input.name)),
    }),
    ...(isProject
      ? [
          route({
            method: 'PUT',
            path: `${base}/promote`,
            tag: TAG,
            summary: 'Promote a project label to a group label (deprecated form)',
            params: T.Object({ id: IdOrPath, name: T.String() }),
            response: GroupLabel,
            status: 200,
            handler: async ({ c, actor, input }) => presentGroupLabel(await promoteLabel(c, actor, input.id, input.name)),
          }),
          route({
            method: 'PUT',
            path: `${base}/:name/promote`,
            tag: TAG,
            summary: 'Promote a project label to a label of its group',
            params: T.Object({ id: IdOrPath, name: T.String() }),
            response: GroupLabel,
            handler: async ({ c, actor, input }) => presentGroupLabel(await promoteLabel(c, actor, input.id, input.name)),
          }),
        ]
      : []),
    route({
      method: 'PUT',
      path: `${base}/:name`,
      tag: TAG,
      summary: 'Change a label (by id or title)',
      params: T.Object({ id: IdOrPath, name: T.String(), ...changes, ...priority }),
      paramRules: changeRules,
      response: Entity,
      handler: async ({ c, actor, input }) => present(await changeLabel(c, actor, type, input.id, input.name, labelInput(input))),
    }),
    route({
      method: 'DELETE',
      path: `${base}/:name`,
      tag: TAG,
      summary: 'Delete a label (by id or title)',
      params: T.Object({ id: IdOrPath, name: T.String() }),
      status: 204,
      handler: async ({ c, actor, input }) => removeLabel(c, actor, type, input.id, input.name),
    }),
    ...(['subscribe', 'unsubscribe'] as const).map((action) =>
      route({
        method: 'POST',
        path: `${base}/:label_id/${action}`,
        tag: TAG,
        summary: `${action === 'subscribe' ? 'Subscribe to' : 'Unsubscribe from'} a label (304 when already so)`,
        params: T.Object({ id: IdOrPath, label_id: T.String() }),
        response: GroupLabel,
        handler: async ({ c, actor, input }) => presentGroupLabel(await subscribeLabel(c, actor, type, input.id, input.label_id, action === 'subscribe')),
      }),
    ),
  ];
}

export const labelRoutes = [...endpoints('project'), ...endpoints('group')];
