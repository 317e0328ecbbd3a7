// Parameter and response schemas of /application/settings, generated from the settings table
// (src/domain/settings/definitions.ts) so that the table stays the one source.
import { Type as T, type TSchema } from '@sinclair/typebox';
import { SETTING_NAMES, defOf, type SettingDef } from '../../domain/settings/definitions.js';
import { CommaList, Nullable, NullClears, OneOf, Timestamp } from '../schemas.js';

function paramOf(def: SettingDef): TSchema {
  const values = def.values;
  switch (def.type) {
    case 'boolean':
      return T.Boolean();
    case 'integer':
    case 'integer?':
      return values ? T.Unsafe<number>({ ...T.Integer(), enum: [...values] }) : T.Integer();
    case 'decimal':
    case 'float':
      return T.Number();
    case 'string':
      // null clears a free-text setting, as the reference's optional String parameters take nil
      return values ? OneOf(values as readonly string[]) : NullClears(T.String());
    case 'strings':
    case 'strings?':
      return CommaList(values ? OneOf(values as readonly string[]) : T.String());
    case 'integers':
      return CommaList(T.Integer());
    case 'object':
      return T.Object({}); // a free-form hash (storage name → weight), checked by the domain
  }
}

function responseOf(def: SettingDef): TSchema {
  switch (def.type) {
    case 'boolean':
      return T.Boolean();
    case 'integer':
      return T.Integer();
    case 'integer?':
      return Nullable(T.Integer());
    case 'decimal':
      return T.String(); // the reference serializes its BigDecimals as strings ("1.0")
    case 'float':
      return T.Number();
    case 'string':
      return Nullable(T.String());
    case 'strings':
      return T.Array(T.String());
    case 'strings?':
      return Nullable(T.Array(T.String()));
    case 'integers':
      return T.Array(T.Integer());
    case 'object':
      return T.Object({}, { additionalProperties: T.Integer() });
  }
}

/** PUT parameters: every setting, optional. */
export const SettingsParams = T.Object(Object.fromEntries(SETTING_NAMES.map((n) => [n, T.Optional(paramOf(defOf(n)))])));

/** Settings a response never carries (the reference's entity leaves these secrets out). */
export const HIDDEN_SETTINGS = SETTING_NAMES.filter((n) => defOf(n).secret === 'hidden');
export const VISIBLE_SETTINGS = SETTING_NAMES.filter((n) => defOf(n).secret !== 'hidden');

/** The application settings object: `id`, timestamps and every visible setting. */
export const ApplicationSettings = T.Object({
  id: T.Integer(),
  ...Object.fromEntries(VISIBLE_SETTINGS.map((n) => [n, responseOf(defOf(n))])),
  created_at: Timestamp,
  updated_at: Timestamp,
});
