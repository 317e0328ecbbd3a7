import { Type as T } from '@sinclair/typebox';

/** The reference's CustomAttribute entity. */
export const CustomAttribute = T.Object({ key: T.String(), value: T.String() });

/** `with_custom_attributes=true` (admins) adds this to users, groups and projects; absent otherwise. */
export const CustomAttributesField = T.Optional(T.Array(CustomAttribute));

/** The list filter `custom_attributes[key]=value` (admins; ignored for others). */
export const CustomAttributesFilterParam = T.Optional(T.Record(T.String(), T.Any()));
