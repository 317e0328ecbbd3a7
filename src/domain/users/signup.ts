// Self sign-up, the reference's web registration (`POST /users`): open only while the instance
// allows sign-ups, subject to the same rules as its registration form.
import type { Container } from '../context.js';
import type { UserRow } from '../../db/repos/users.js';
import type { Actor } from '../auth/actor.js';
import { exactError, missing, validation } from '../errors.js';
import { getSettings } from '../settings/service.js';
import { createSession } from '../tokens/sessions.js';
import { attributeErrors, createUserRecord } from './service.js';
import { emailDomainError } from './signup_restrictions.js';

export interface SignUpInput {
  name?: string;
  first_name?: string;
  last_name?: string;
  username?: string;
  email?: string;
  password?: string;
}

export interface SignUpResult {
  user: UserRow;
  /** A web session for the new user, unless it must wait for an administrator's approval. */
  session: { value: string; expiresAt: string } | null;
}

/**
 * Registers a user. When sign-up is not allowed (the reference's `allow_signup?`: `signup_enabled`
 * and `password_authentication_enabled_for_web`), the registration does not exist: 404 as an
 * unknown route, before any parameter is looked at.
 */
export async function signUp(c: Container, _actor: Actor | null, input: SignUpInput | undefined): Promise<SignUpResult> {
  const s = await getSettings(c);
  if (!s.signup_enabled || !s.password_authentication_enabled_for_web) throw exactError(404, { error: '404 Not Found' });
  // Rails' `params.require(:user)`.
  if (!input) throw missing('user');

  // The form may send the name whole or as first and last name.
  const name = input.name ?? [input.first_name, input.last_name].filter((p) => p && p.trim() !== '').join(' ');
  const password = input.password ?? '';
  const errors = attributeErrors(
    { name, username: input.username ?? '', email: input.email ?? '', password: password === '' ? undefined : password },
    null,
  );
  // A blank password is only "blank", not also "too short" (Devise skips the length check then).
  if (password === '') (errors.password ??= []).push("can't be blank");
  const domainError = errors.email ? null : await emailDomainError(c, input.email!);
  if (domainError) (errors.email ??= []).push(domainError);
  if (Object.keys(errors).length) throw validation(errors);

  // The reference confirms a sign-up at once unless it sends confirmation e-mails, which Anvil does not.
  // Duplicate usernames and e-mails come back from here as the form's "has already been taken".
  const user = await createUserRecord(c, {
    username: input.username!,
    name,
    email: input.email!,
    password,
    confirmed: true,
    state: s.require_admin_approval_after_user_signup ? 'blocked_pending_approval' : 'active',
  });
  // Like Devise's inactive sign-up, a user awaiting approval is not signed in.
  const session = user.state === 'active' ? await createSession(c, user.id) : null;
  return { user, session };
}
