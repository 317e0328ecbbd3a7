import type { VariableView } from '../../domain/ci/variables_service.js';

export const presentVariable = (v: VariableView) => ({
  variable_type: v.row.variable_type as 'env_var' | 'file',
  key: v.row.key,
  value: v.value,
  protected: v.row.protected === 1,
  masked: v.row.masked === 1,
  raw: v.row.raw === 1,
  environment_scope: v.row.environment_scope,
  description: v.row.description,
});

export const presentInstanceVariable = (v: VariableView) => {
  const { environment_scope: _scope, ...rest } = presentVariable(v);
  return rest;
};
