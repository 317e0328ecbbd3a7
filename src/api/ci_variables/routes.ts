// CI/CD variables: the same five endpoints for projects (/projects/:id/variables), groups
// (/groups/:id/variables) and the instance (/admin/ci/variables).
import { Type as T, type TProperties } from '@sinclair/typebox';
import {
  changeVariable, createVariable, getVariable, listVariables, removeVariable, type VariableInput, type VariableOwnerType,
} from '../../domain/ci/variables_service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentInstanceVariable, presentVariable } from './present.js';
import { CiVariable, EnvironmentFilter, InstanceCiVariable, variableParams } from './schemas.js';

const TAG = 'ci_variables';

function endpoints(type: VariableOwnerType) {
  const instance = type === 'instance';
  const base = instance ? '/admin/ci/variables' : `/${type}s/:id/variables`;
  const owner: TProperties = instance ? {} : { id: IdOrPath };
  const scoped: TProperties = instance ? {} : { environment_scope: T.Optional(T.String()) };
  const filter: TProperties = instance ? {} : { filter: EnvironmentFilter };
  const response = instance ? InstanceCiVariable : CiVariable;
  const present = instance ? presentInstanceVariable : presentVariable;
  const who = { project: "a project's (maintainers)", group: "a group's (owners)", instance: "the instance's (admins)" }[type];
  // The parameters as parsed (the owner's id and the filter only where the path has them).
  type Given = VariableInput & { id?: number | string; key: string; filter?: { environment_scope?: string } };
  const given = (input: unknown) => {
    const { id, key, filter, ...rest } = input as Given;
    return { id, key, scope: filter?.environment_scope, rest };
  };
  return [
    route({
      method: 'GET',
      path: base,
      tag: TAG,
      summary: `List ${who} CI/CD variables`,
      params: T.Object(owner),
      response,
      paginated: true,
      handler: async ({ c, actor, input, page }) => mapPage(await listVariables(c, actor, { type, id: given(input).id }, page), present),
    }),
    route({
      method: 'GET',
      path: `${base}/:key`,
      tag: TAG,
      summary: `One of ${who} CI/CD variables (filter[environment_scope] when the key has several)`,
      params: T.Object({ ...owner, key: T.String(), ...filter }),
      response,
      handler: async ({ c, actor, input }) => {
        const g = given(input);
        return present(await getVariable(c, actor, { type, id: g.id }, g.key, g.scope));
      },
    }),
    route({
      method: 'POST',
      path: base,
      tag: TAG,
      summary: `Add a CI/CD variable to ${who}`,
      params: T.Object({ ...owner, ...variableParams, key: T.String(), value: T.String(), ...scoped }),
      response,
      handler: async ({ c, actor, input }) => {
        const g = given(input);
        return present(await createVariable(c, actor, { type, id: g.id }, { ...g.rest, key: g.key, value: g.rest.value! }));
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/:key`,
      tag: TAG,
      summary: `Change one of ${who} CI/CD variables`,
      params: T.Object({ ...owner, ...variableParams, key: T.String(), ...scoped, ...filter }),
      response,
      handler: async ({ c, actor, input }) => {
        const g = given(input);
        return present(await changeVariable(c, actor, { type, id: g.id }, g.key, g.scope, g.rest));
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/:key`,
      tag: TAG,
      summary: `Remove one of ${who} CI/CD variables`,
      params: T.Object({ ...owner, key: T.String(), ...filter }),
      status: 204,
      handler: async ({ c, actor, input }) => {
        const g = given(input);
        return removeVariable(c, actor, { type, id: g.id }, g.key, g.scope);
      },
    }),
  ];
}

export const ciVariableRoutes = [...endpoints('project'), ...endpoints('group'), ...endpoints('instance')];
