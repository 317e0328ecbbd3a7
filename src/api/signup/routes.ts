// Self sign-up outside /api/v4, the reference's web registration (`POST /users`). Anvil answers
// 201 with the new user (UserBasic) instead of a redirect, and opens a session when the user may
// sign in at once.
import { signUp } from '../../domain/users/signup.js';
import { route } from '../../http/route.js';
import { presentUserBasic } from '../users/present.js';
import { UserBasic } from '../users/schemas.js';
import { sessionCookie } from '../../http/auth.js';
import { SignUpParams } from './schemas.js';

export const signupRoutes = [
  route({
    method: 'POST',
    path: '/users',
    outsideApi: true,
    // Registration is anonymous: a credential sent along is neither checked nor used.
    ownCredentials: true,
    auth: 'optional',
    tag: 'users',
    summary: 'Sign up (web registration; only while sign-ups are enabled)',
    params: SignUpParams,
    response: UserBasic,
    handler: async ({ c, actor, input, reply }) => {
      const { user, session } = await signUp(c, actor, input.user);
      if (session) reply.header('set-cookie', sessionCookie(c, session));
      return presentUserBasic(c, user);
    },
  }),
];
