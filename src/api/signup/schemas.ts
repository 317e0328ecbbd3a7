// The registration form's parameters: the reference's `user[...]` hash (form or JSON).
import { Type as T } from '@sinclair/typebox';

/** Every field is optional here: a blank one is a validation error of the form, not a missing param. */
export const SignUpParams = T.Object({
  user: T.Optional(
    T.Object({
      name: T.Optional(T.String()),
      first_name: T.Optional(T.String()),
      last_name: T.Optional(T.String()),
      username: T.Optional(T.String()),
      email: T.Optional(T.String()),
      password: T.Optional(T.String()),
    }),
  ),
});
