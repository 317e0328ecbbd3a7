// Self sign-up (`POST /users`, outside /api/v4) and the settings that govern it: signup_enabled,
// password_authentication_enabled_for_web, the e-mail domain lists, admin approval and
// default_projects_limit. Observed as a client would: the answer, the cookie, the users API.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { USER_BASIC_KEYS } from '../helpers/keys.js';
import { createTokenForUsername } from '../../src/domain/tokens/cli.js';
import { createSession } from '../../src/domain/tokens/sessions.js';

const SETTINGS = '/api/v4/application/settings';
const PENDING = '403 Forbidden - Your account is pending approval from your administrator and hence blocked.';

let seq = 0;
const uniq = (p: string) => `${p}${++seq}${Math.random().toString(36).slice(2, 6)}`;

for (const dialect of DIALECTS) {
  describe(`sign-up (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const setting = async (body: Record<string, unknown>) => {
      const r = await t.request('PUT', SETTINGS, { body });
      assert.equal(r.status, 200, r.text);
    };
    const signUp = (user: Record<string, unknown> | undefined) =>
      t.request('POST', '/users', { token: null, body: user === undefined ? {} : { user } });
    const signUpForm = (fields: Record<string, string>) =>
      t.request('POST', '/users', {
        token: null,
        payload: new URLSearchParams(Object.entries(fields).map(([k, v]) => [`user[${k}]`, v])).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const newUser = (over: Record<string, string> = {}) => {
      const username = uniq('su');
      return { name: `Sign Up ${username}`, username, email: `${username}@example.com`, password: 'long-enough-pw', ...over };
    };
    const findByUsername = async (username: string) => {
      const r = await t.get(`/api/v4/users?username=${username}`);
      assert.equal(r.status, 200);
      return r.body as any[];
    };
    const sessionOf = (setCookie: string | string[] | undefined): string => {
      const raw = Array.isArray(setCookie) ? setCookie[0] : setCookie;
      const m = /^_service_session=([^;]+)/.exec(raw ?? '');
      assert.ok(m, `no session cookie in ${raw}`);
      return m[1];
    };

    beforeEach(async () => {
      await setting({
        signup_enabled: true,
        password_authentication_enabled_for_web: true,
        require_admin_approval_after_user_signup: false,
        domain_allowlist: [],
        domain_denylist_enabled: false,
        domain_denylist: [],
        default_projects_limit: 100000,
      });
    });

    it('signup_enabled: a sign-up creates an active user (201, UserBasic) with a session cookie that authenticates', async () => {
      await setting({ default_projects_limit: 42 });
      const u = newUser();
      const r = await signUp(u);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), USER_BASIC_KEYS);
      assert.equal(r.body.username, u.username);
      assert.equal(r.body.name, u.name);
      assert.equal(r.body.state, 'active');
      assert.equal(r.body.web_url, `http://anvil.test/${u.username}`);

      const cookie = String(r.headers['set-cookie']);
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; Path=\//);
      const me = await t.request('GET', '/api/v4/user', { token: null, headers: { cookie: `_service_session=${sessionOf(r.headers['set-cookie'])}` } });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.id, r.body.id);
      assert.equal(me.body.email, u.email);
      assert.equal(me.body.projects_limit, 42); // default_projects_limit applies to sign-ups
      assert.notEqual(me.body.confirmed_at, null);
      assert.equal(me.body.is_admin, undefined);

      const listed = await findByUsername(u.username);
      assert.equal(listed.length, 1);
      assert.equal(listed[0].id, r.body.id);
      assert.equal(listed[0].state, 'active');
      assert.equal(listed[0].is_admin, false);
    });

    it('accepts the form encoding and first_name + last_name in place of name', async () => {
      const u = newUser();
      const r = await signUpForm({ first_name: 'Ann', last_name: 'Lee', username: u.username, email: u.email, password: u.password });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.name, 'Ann Lee');
      assert.equal((await findByUsername(u.username))[0].email, u.email);
    });

    it('signup_enabled=false: the registration is 404 and nobody is created; turning it back on reopens it', async () => {
      const u = newUser();
      await setting({ signup_enabled: false });
      const r = await signUp(u);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: '404 Not Found' });
      assert.deepEqual(await findByUsername(u.username), []);
      // Not routable at all: even a request without parameters is 404, not 400.
      assert.equal((await signUp(undefined)).status, 404);

      await setting({ signup_enabled: true });
      assert.equal((await signUp(u)).status, 201);
      assert.equal((await findByUsername(u.username)).length, 1);
    });

    it('password_authentication_enabled_for_web=false: sign-up with a password is not available (404)', async () => {
      const u = newUser();
      await setting({ password_authentication_enabled_for_web: false });
      const r = await signUp(u);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: '404 Not Found' });
      assert.deepEqual(await findByUsername(u.username), []);
    });

    it('domain_allowlist refuses other domains; domain_denylist (when enabled) refuses its domains', async () => {
      await setting({ domain_allowlist: ['good.test'] });
      const outside = newUser();
      const refused = await signUp({ ...outside, email: `${outside.username}@other.test` });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { message: { email: ['domain is not authorized for sign-up.'] } });
      assert.deepEqual(await findByUsername(outside.username), []);
      const inside = newUser();
      assert.equal((await signUp({ ...inside, email: `${inside.username}@good.test` })).status, 201);

      await setting({ domain_allowlist: [], domain_denylist: ['*.spam.test'] });
      const spam = newUser();
      const spamEmail = `${spam.username}@x.spam.test`;
      // The list only counts while domain_denylist_enabled is on.
      assert.equal((await signUp({ ...spam, email: spamEmail })).status, 201);
      await setting({ domain_denylist_enabled: true });
      const spam2 = newUser();
      const denied = await signUp({ ...spam2, email: `${spam2.username}@y.spam.test` });
      assert.equal(denied.status, 400);
      assert.deepEqual(denied.body, { message: { email: ['is not from an allowed domain.'] } });
      assert.deepEqual(await findByUsername(spam2.username), []);
    });

    it('require_admin_approval_after_user_signup: the user is blocked_pending_approval, gets no session, and cannot authenticate', async () => {
      await setting({ require_admin_approval_after_user_signup: true });
      const u = newUser();
      const r = await signUp(u);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.state, 'blocked_pending_approval');
      assert.equal(r.headers['set-cookie'], undefined);
      assert.equal((await findByUsername(u.username))[0].state, 'blocked_pending_approval');

      // Neither a token nor a session of theirs is accepted.
      const token = await createTokenForUsername(t.c, u.username, { name: 'x', scopes: ['api'], expiresAt: null });
      const byToken = await t.get('/api/v4/user', token);
      assert.equal(byToken.status, 403);
      assert.deepEqual(byToken.body, { message: PENDING });
      const session = await createSession(t.c, r.body.id);
      const bySession = await t.request('GET', '/api/v4/user', { token: null, headers: { cookie: `_service_session=${session.value}` } });
      assert.equal(bySession.status, 403);
      assert.deepEqual(bySession.body, { message: PENDING });
    });

    it('bad inputs: no user hash, blank and invalid fields, short password (400, nothing created)', async () => {
      const none = await signUp(undefined);
      assert.equal(none.status, 400);
      assert.deepEqual(none.body, { message: '400 (Bad request) "user" not given' });

      const notHash = await t.request('POST', '/users', { token: null, body: { user: 'x' } });
      assert.equal(notHash.status, 400);
      assert.deepEqual(notHash.body, { error: 'user is invalid' });

      const blank = await signUp({});
      assert.equal(blank.status, 400);
      assert.deepEqual(blank.body, {
        message: { name: ["can't be blank"], username: ["can't be blank"], email: ["can't be blank"], password: ["can't be blank"] },
      });

      const u = newUser();
      const bad = await signUp({ ...u, username: '-bad', email: 'not-an-email', password: 'short' });
      assert.equal(bad.status, 400);
      assert.deepEqual(Object.keys(bad.body.message).sort(), ['email', 'password', 'username']);
      assert.deepEqual(bad.body.message.email, ['is invalid']);
      assert.deepEqual(bad.body.message.password, ['is too short (minimum is 8 characters)']);
      assert.deepEqual(await findByUsername(u.username), []);
    });

    it('a taken username or e-mail is a 400 validation error, as the form shows it', async () => {
      const first = newUser();
      assert.equal((await signUp(first)).status, 201);
      const sameName = await signUp(newUser({ username: first.username }));
      assert.equal(sameName.status, 400);
      assert.deepEqual(sameName.body, { message: { username: ['has already been taken'] } });
      const sameEmail = await signUp(newUser({ email: first.email.toUpperCase() }));
      assert.equal(sameEmail.status, 400);
      assert.deepEqual(sameEmail.body, { message: { email: ['has already been taken'] } });
    });

    it('does not clash with the API: POST /api/v4/users stays admin-only', async () => {
      const r = await t.request('POST', '/api/v4/users', { token: null, body: newUser() });
      assert.equal(r.status, 401);
    });
  });
}
