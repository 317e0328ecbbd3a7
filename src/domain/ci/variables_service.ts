// CI/CD variables of projects (maintainers), groups (owners) and the instance (admins): list,
// get, create, update, delete, with the reference's validations (Ci::HasVariable, Ci::Maskable,
// HasEnvironmentScope, the uniqueness of a key per environment scope). Values are stored
// encrypted with the instance key and only ever decrypted for those who manage them and for jobs.
import type { Container } from '../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import {
  deleteVariable, insertVariable, pageVariables, updateVariable, variablesByKey, type CiVariableRow, type VariableOwner,
} from '../../db/repos/ci_variables.js';
import { requireAdmin, type Actor } from '../auth/actor.js';
import { conflict, forbidden, notFound, validation, type ValidationMessages } from '../errors.js';
import { findGroup } from '../groups/find.js';
import { findProject } from '../projects/find.js';
import { decryptSecret, encryptSecret } from '../shared/encryption.js';
import { mapPage, type PageRequest, type PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { canManageGroupVariables, requireCiSettings } from './policy.js';

export type VariableOwnerType = VariableOwner['type'];

export interface VariableView {
  row: CiVariableRow;
  value: string;
}

export interface VariableInput {
  key?: string;
  value?: string;
  variable_type?: 'env_var' | 'file';
  protected?: boolean;
  masked?: boolean;
  raw?: boolean;
  environment_scope?: string;
  description?: string;
}

/** The reference's Ci::Maskable: what a masked value may be (expanded; raw). */
export const MASKABLE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
export const MASKABLE_RAW = /^\S{8,}$/;
const KEY = /^[a-zA-Z0-9_]+$/;
const SCOPE = /^[a-zA-Z0-9_/${}. *-]+$/;
const INSTANCE_VALUE_MAX = 10_000;
const MULTIPLE = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'";
const NOT_FOUND: Record<VariableOwnerType, string> = { project: 'Variable', group: 'GroupVariable', instance: 'InstanceVariable' };

/** The owner the actor may manage: 404 for an invisible project or group, 403 below the role. */
async function managedOwner(c: Container, actor: Actor, type: VariableOwnerType, idOrPath?: number | string): Promise<VariableOwner> {
  if (type === 'instance') {
    requireAdmin(actor);
    return { type, id: 0 };
  }
  if (type === 'project') {
    const found = await findProject(c, actor, idOrPath!);
    await requireCiSettings(c, actor, found);
    return { type, id: found.row.id };
  }
  const { row, access } = await findGroup(c, actor, idOrPath!);
  if (!canManageGroupVariables(access)) throw forbidden();
  return { type, id: row.id };
}

const viewOf = (c: Container, row: CiVariableRow): VariableView => ({ row, value: decryptSecret(c.config.secretKey, row.encrypted_value) });

/** The reference's model validations, in its order; messages keyed by attribute. */
function validate(type: VariableOwnerType, v: Attributes): ValidationMessages {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, message: string) => (errors[attr] ??= []).push(message);
  if (v.key === '') add('key', "can't be blank");
  if (v.key.length > 255) add('key', 'is too long (maximum is 255 characters)');
  if (!KEY.test(v.key)) add('key', "can contain only letters, digits and '_'.");
  if (v.masked && !(v.raw ? MASKABLE_RAW : MASKABLE).test(v.value)) add('value', 'is invalid');
  if (type === 'instance' && v.value.length > INSTANCE_VALUE_MAX) {
    add('value', `The value of the provided variable exceeds the ${INSTANCE_VALUE_MAX} character limit`);
  }
  if (v.description !== null && v.description.length > 255) add('description', 'is too long (maximum is 255 characters)');
  if (type !== 'instance') {
    if (v.environment_scope.trim() === '') add('environment_scope', "can't be blank");
    if (!SCOPE.test(v.environment_scope)) add('environment_scope', "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces");
  }
  return errors;
}

const taken = (key: string): ValidationMessages => ({ key: [`(${key}) has already been taken`] });

/** One variable by key (and environment scope); 409 when the key has several scopes and none was named. */
async function findOne(c: Container, owner: VariableOwner, key: string, scope: string | undefined): Promise<CiVariableRow> {
  const rows = await variablesByKey(c.db, owner, key, owner.type === 'instance' ? undefined : scope);
  if (rows.length > 1) throw conflict(MULTIPLE);
  if (!rows[0]) throw notFound(NOT_FOUND[owner.type]);
  return rows[0];
}

/** Whose variables a request names: a project or group by id or path; the instance by none. */
export interface OwnerRef {
  type: VariableOwnerType;
  id?: number | string;
}

/** One variable by key (and scope), of an owner the actor manages. */
async function managedVariable(c: Container, actor: Actor, ref: OwnerRef, key: string, scope?: string): Promise<CiVariableRow> {
  return findOne(c, await managedOwner(c, actor, ref.type, ref.id), key, scope);
}

export async function listVariables(c: Container, actor: Actor, ref: OwnerRef, page: PageRequest): Promise<PageResult<VariableView>> {
  const owner = await managedOwner(c, actor, ref.type, ref.id);
  return mapPage(await pageVariables(c.db, owner, page), (r) => viewOf(c, r));
}

export async function getVariable(c: Container, actor: Actor, ref: OwnerRef, key: string, scope?: string): Promise<VariableView> {
  return viewOf(c, await managedVariable(c, actor, ref, key, scope));
}

/** The columns a create and an update both write. */
type Columns = Pick<CiVariableRow, 'variable_type' | 'protected' | 'masked' | 'raw' | 'environment_scope' | 'description' | 'updated_at'>;

/** A variable's attributes once input and defaults (or its current ones) are merged. */
type Attributes = Required<Omit<VariableInput, 'description'>> & { description: string | null };

/**
 * Validates the attributes and writes them (`write` inserts or updates the columns given); a
 * key taken in the scope is the reference's uniqueness error.
 */
async function save(
  c: Container,
  type: VariableOwnerType,
  v: Attributes,
  write: (columns: Columns) => Promise<CiVariableRow>,
): Promise<VariableView> {
  const errors = validate(type, v);
  if (Object.keys(errors).length) throw validation(errors);
  try {
    const row = await write({
      variable_type: v.variable_type,
      protected: v.protected ? 1 : 0,
      masked: v.masked ? 1 : 0,
      raw: v.raw ? 1 : 0,
      environment_scope: v.environment_scope,
      description: v.description,
      updated_at: nowIso(),
    });
    return { row, value: v.value };
  } catch (err) {
    if (isUniqueViolation(err)) throw validation(taken(v.key));
    throw err;
  }
}

export async function createVariable(c: Container, actor: Actor, ref: OwnerRef, input: VariableInput & { key: string; value: string }): Promise<VariableView> {
  const { type } = ref;
  const owner = await managedOwner(c, actor, type, ref.id);
  const v: Attributes = {
    key: input.key.trim(),
    value: input.value,
    variable_type: input.variable_type ?? 'env_var',
    protected: input.protected ?? false,
    masked: input.masked ?? false,
    raw: input.raw ?? false,
    environment_scope: type === 'instance' ? '*' : (input.environment_scope ?? '*'),
    description: input.description ?? null,
  };
  return save(c, type, v, (columns) =>
    insertVariable(c.db, {
      ...columns,
      owner_type: owner.type,
      owner_id: owner.id,
      project_id: owner.type === 'project' ? owner.id : null,
      group_id: owner.type === 'group' ? owner.id : null,
      key: v.key,
      encrypted_value: encryptSecret(c.config.secretKey, v.value),
      created_at: columns.updated_at,
    }),
  );
}

export async function changeVariable(
  c: Container,
  actor: Actor,
  ref: OwnerRef,
  key: string,
  scope: string | undefined,
  input: Omit<VariableInput, 'key'>,
): Promise<VariableView> {
  const { type } = ref;
  const row = await managedVariable(c, actor, ref, key, scope);
  const v: Attributes = {
    key: row.key,
    value: input.value ?? viewOf(c, row).value,
    variable_type: input.variable_type ?? (row.variable_type as 'env_var' | 'file'),
    protected: input.protected ?? row.protected === 1,
    masked: input.masked ?? row.masked === 1,
    raw: input.raw ?? row.raw === 1,
    environment_scope: type === 'instance' ? '*' : (input.environment_scope ?? row.environment_scope),
    description: input.description ?? row.description,
  };
  return save(c, type, v, (columns) =>
    updateVariable(c.db, row.id, {
      ...columns,
      ...(input.value !== undefined ? { encrypted_value: encryptSecret(c.config.secretKey, v.value) } : {}),
    }),
  );
}

export async function removeVariable(c: Container, actor: Actor, ref: OwnerRef, key: string, scope?: string): Promise<void> {
  await deleteVariable(c.db, (await managedVariable(c, actor, ref, key, scope)).id);
}
