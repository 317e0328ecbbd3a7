// The CI/CD variable (the reference's Entities::Ci::Variable). Instance variables have no
// environment scope, so theirs is not shown.
import { Type as T } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';

const VariableType = T.Union([T.Literal('env_var'), T.Literal('file')]);

export const CiVariable = T.Object({
  variable_type: VariableType,
  key: T.String(),
  value: T.String(),
  protected: T.Boolean(),
  masked: T.Boolean(),
  raw: T.Boolean(),
  environment_scope: T.String(),
  description: Nullable(T.String()),
});

export const InstanceCiVariable = T.Omit(CiVariable, ['environment_scope']);

/** The writable fields (create: key and value required). */
export const variableParams = {
  value: T.Optional(T.String()),
  protected: T.Optional(T.Boolean()),
  masked: T.Optional(T.Boolean()),
  raw: T.Optional(T.Boolean()),
  variable_type: T.Optional(VariableType),
  description: T.Optional(T.String()),
};

export const EnvironmentFilter = T.Optional(T.Object({ environment_scope: T.Optional(T.String()) }));
