// Schema helpers shared by every area's schemas.ts.
import { Type as T, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

type Primitive = 'string' | 'integer' | 'number' | 'boolean';

/** A field that is its type or null (serialized with a plain type list, which is fastest). */
export const Nullable = <S extends TSchema>(s: S) => {
  const base = { ...(s as any) };
  const t = base.type as Primitive | undefined;
  return t ? T.Unsafe<Static<S> | null>({ ...base, type: [t, 'null'] }) : T.Union([s, T.Null()]);
};

export const Timestamp = T.String({ format: 'date-time' });
export const DateOnly = T.String({ format: 'date' });

/** A string parameter limited to the given values (errors read "does not have a valid value"). */
export const OneOf = <V extends string>(values: readonly V[], opts: object = {}) =>
  T.Unsafe<V>({ ...T.String(opts), enum: [...values] });

/** `:id` that is a numeric id or a URL-encoded full path. */
export const IdOrPath = T.Union([T.Integer(), T.String()]);

/** An array parameter that also accepts `a,b,c`. */
export const CommaList = <S extends TSchema>(item: S) => T.Unsafe<Static<S>[]>({ ...T.Array(item), commaSeparated: true });
/** Grape's `allow_blank: false`: a string given empty (or only spaces) is refused with `<name> is empty`. */
export const NotBlank = <S extends TSchema>(schema: S): S => ({ ...schema, allowBlank: false });
/** A parameter whose `null` is a value (it clears the field), not an absent parameter. */
export const NullClears = <S extends TSchema>(schema: S) => ({ ...schema, nullable: true }) as unknown as TUnsafe<Static<S> | null>;
/** A non-string parameter (a file) whose empty value is given, not absent: `avatar=` removes an avatar. */
export const BlankClears = <S extends TSchema>(schema: S): S => ({ ...schema, blankIsValue: true });
