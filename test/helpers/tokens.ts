// Helpers for the token and OAuth tests.
import assert from 'node:assert/strict';
import { keysOf, type TestApp } from './build.js';
import { TOKEN_WITH_TOKEN_KEYS } from './keys.js';


/** YYYY-MM-DD `days` from today (UTC). */
export const dayFromToday = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Creates a personal access token for `userId` through the admin API; returns the response body (with `token`). */
export async function adminCreateToken(
  t: TestApp,
  userId: number,
  body: { name?: string; scopes?: string[]; expires_at?: string } = {},
): Promise<any> {
  const r = await t.request('POST', `/api/v4/users/${userId}/personal_access_tokens`, {
    body: { name: body.name ?? 'made by admin', scopes: body.scopes ?? ['api'], ...(body.expires_at ? { expires_at: body.expires_at } : {}) },
  });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(keysOf(r.body), TOKEN_WITH_TOKEN_KEYS);
  return r.body;
}
