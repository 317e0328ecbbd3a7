// A Node suite against Anvil: one server for the file, seeded, reset before each test.
// Run: node --test examples/node (after `npm install anvil` or from this repository).
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startAnvil } from 'anvil/testing';

const ALICE = 'alice-test-token-0000000001';

describe('acme/demo', () => {
  let anvil;
  before(async () => {
    anvil = await startAnvil({ seed: fileURLToPath(new URL('../seed.yml', import.meta.url)) });
  });
  after(() => anvil.stop());
  beforeEach(() => anvil.reset());

  const api = (path, init = {}) =>
    fetch(`${anvil.url}/api/v4${path}`, { ...init, headers: { 'private-token': ALICE, 'content-type': 'application/json' } });

  const branches = async () => (await (await api('/projects/acme%2Fdemo/repository/branches')).json()).map((b) => b.name);

  it('a developer creates a branch', async () => {
    const res = await api('/projects/acme%2Fdemo/repository/branches', { method: 'POST', body: JSON.stringify({ branch: 'feature', ref: 'main' }) });
    assert.equal(res.status, 201);
    assert.deepEqual(await branches(), ['feature', 'main']);
  });

  it('after the reset the branch is gone', async () => {
    assert.deepEqual(await branches(), ['main']);
  });

  it('a developer cannot push to the protected main branch', async () => {
    const res = await api('/projects/acme%2Fdemo/repository/files/x.txt', {
      method: 'POST',
      body: JSON.stringify({ branch: 'main', content: 'x', commit_message: 'x' }),
    });
    assert.equal(res.status, 403);
  });
});
