// Git over SSH with the real ssh and git clients and real keys against Anvil's SSH server: the
// welcome line and what else a session may not do, clone / fetch / push / tags / deleting
// branches / a large push / git archive, keys that may not sign in or may no longer be used,
// deploy keys read-only and with write access, and the settings that switch SSH off.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DIALECTS } from '../helpers/build.js';
import { commitFiles, gitOk, runGit, scratchDir, serverGit } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';
import { addKey, buildSshTestApp, gitSsh, makeKey, runSsh, type SshTestApp, type TestKey } from '../helpers/ssh.js';
import { framed, parseGitCommand } from '../../src/ssh/server.js';

type User = { id: number; username: string; token: string; key: TestKey };

for (const dialect of DIALECTS) {
  describe(`git over SSH (${dialect})`, () => {
    let t: SshTestApp;
    let owner: User;
    let p: any;

    const user = async (extra: Record<string, unknown> = {}): Promise<User> => {
      const u = await t.createUser(extra);
      const key = makeKey(t);
      await addKey(t, u.token, key);
      return { ...u, key };
    };
    const tip = async (projectId: number, ref: string) => {
      const r = await serverGit(t, projectId, ['rev-parse', '--verify', '--quiet', ref]);
      return r.code === 0 ? r.stdout.trim() : null;
    };

    before(async () => {
      t = await buildSshTestApp(dialect);
      owner = await user();
      p = await makeProject(t, owner.token, { name: 'over-ssh', visibility: 'private', initialize_with_readme: true });
    });
    after(async () => t.close());

    it('parses the commands git sends, and frames refusals as the reference does', () => {
      assert.deepEqual(parseGitCommand("git-upload-pack '/a/b/c.git'"), { command: 'git-upload-pack', path: 'a/b/c' });
      assert.deepEqual(parseGitCommand("git-receive-pack 'a/c.git'"), { command: 'git-receive-pack', path: 'a/c' });
      assert.deepEqual(parseGitCommand('git upload-archive a/c'), { command: 'git-upload-archive', path: 'a/c' });
      assert.equal(parseGitCommand('ls -la'), null);
      assert.equal(parseGitCommand("git-upload-pack ''"), null);
      assert.equal(framed('No.').split('\n')[3], 'remote: ERROR: No.');
    });

    it('ssh_url_to_repo names the SSH port; the host keys live in the data dir', async () => {
      assert.equal(p.ssh_url_to_repo, `ssh://git@127.0.0.1:${t.sshPort}/${p.path_with_namespace}.git`);
      const dir = path.join(t.c.config.dataDir, 'ssh');
      assert.deepEqual(fs.readdirSync(dir).sort(), ['ssh_host_ed25519_key', 'ssh_host_ed25519_key.pub', 'ssh_host_rsa_key', 'ssh_host_rsa_key.pub']);
      assert.equal(fs.statSync(path.join(dir, 'ssh_host_ed25519_key')).mode & 0o777, 0o600);
    });

    it('`ssh git@host` answers the welcome line; no pty, no other command, no port forwarding', async () => {
      const hello = await runSsh(t, owner.key, ['-T']);
      assert.equal(hello.code, 0, hello.stderr);
      assert.equal(hello.stdout, `Welcome to Anvil, @${owner.username}!\n`);
      const pty = await runSsh(t, owner.key, ['-tt']);
      assert.match(pty.stderr, /PTY allocation request failed/);
      const other = await runSsh(t, owner.key, ['ls', '-la']);
      assert.equal(other.code, 1);
      assert.equal(other.stderr, framed('Disallowed command'));
      const fwd = await runSsh(t, owner.key, ['-T', '-N', '-o', 'ExitOnForwardFailure=yes', '-R', '0:127.0.0.1:22']);
      assert.notEqual(fwd.code, 0);
      assert.match(fwd.stderr, /remote port forwarding failed/);
    });

    it('clones, fetches and pushes; creates and deletes branches and tags; each push records its event', async () => {
      const dir = path.join(scratchDir(t, 's'), 'repo');
      const c = await gitSsh(t, owner.key, ['clone', '--quiet', p.ssh_url_to_repo, dir]);
      assert.equal(c.code, 0, c.stderr);
      assert.ok(fs.existsSync(path.join(dir, 'README.md')));
      const sha = await commitFiles(t, dir, { 'a.txt': 'a\n' }, 'Over SSH');
      const push = await gitSsh(t, owner.key, ['push', 'origin', 'main', 'HEAD:refs/heads/topic'], { cwd: dir });
      assert.equal(push.code, 0, push.stderr);
      assert.equal(await tip(p.id, 'refs/heads/main'), sha);
      assert.equal(await tip(p.id, 'refs/heads/topic'), sha);
      // the push went through the one push path: an event for it
      const events = await t.get(`/api/v4/projects/${p.id}/events`, owner.token);
      assert.ok(events.body.some((e: any) => e.action_name === 'pushed to' && e.push_data.ref === 'main' && e.push_data.commit_to === sha), JSON.stringify(events.body));

      await gitOk(t, ['tag', '-a', 'v1.0', '-m', 'one'], { cwd: dir });
      assert.equal((await gitSsh(t, owner.key, ['push', 'origin', 'v1.0'], { cwd: dir })).code, 0);
      assert.ok(await tip(p.id, 'refs/tags/v1.0'));
      const del = await gitSsh(t, owner.key, ['push', 'origin', ':topic', ':refs/tags/v1.0'], { cwd: dir });
      assert.equal(del.code, 0, del.stderr);
      assert.equal(await tip(p.id, 'refs/heads/topic'), null);
      assert.equal(await tip(p.id, 'refs/tags/v1.0'), null);

      // someone else pushes over HTTP; this clone fetches it over SSH (protocol v2 too)
      const other = path.join(scratchDir(t, 's'), 'repo');
      assert.equal((await gitSsh(t, owner.key, ['clone', '--quiet', p.ssh_url_to_repo, other])).code, 0);
      const next = await commitFiles(t, other, { 'b.txt': 'b\n' }, 'Second');
      assert.equal((await gitSsh(t, owner.key, ['push', 'origin', 'main'], { cwd: other })).code, 0);
      for (const version of ['1', '2']) {
        const f = await gitSsh(t, owner.key, ['-c', `protocol.version=${version}`, 'fetch', 'origin'], { cwd: dir });
        assert.equal(f.code, 0, f.stderr);
      }
      assert.equal(await gitOk(t, ['rev-parse', 'origin/main'], { cwd: dir }), next);
    });

    it('a large push streams through (and clones back whole)', async () => {
      const big = await makeProject(t, owner.token, { name: 'big-ssh', visibility: 'private' });
      const dir = scratchDir(t, 'big');
      await gitOk(t, ['init', '--quiet', '--initial-branch=main', dir]);
      const files: Record<string, Buffer> = {};
      for (let i = 0; i < 6; i++) files[`blob${i}.bin`] = crypto.randomBytes(4 * 1024 * 1024);
      const sha = await commitFiles(t, dir, files, 'Large');
      const push = await gitSsh(t, owner.key, ['push', big.ssh_url_to_repo, 'main'], { cwd: dir });
      assert.equal(push.code, 0, push.stderr);
      assert.equal(await tip(big.id, 'refs/heads/main'), sha);
      assert.equal((await serverGit(t, big.id, ['fsck', '--no-progress'])).code, 0);
      const back = path.join(scratchDir(t, 'big'), 'repo');
      assert.equal((await gitSsh(t, owner.key, ['clone', '--quiet', big.ssh_url_to_repo, back])).code, 0);
      assert.ok(fs.readFileSync(path.join(back, 'blob5.bin')).equals(files['blob5.bin']!));
    });

    it('git archive --remote runs upload-archive for a reader', async () => {
      const out = path.join(t.tmp, 'archive.tar');
      const r = await gitSsh(t, owner.key, ['archive', `--remote=${p.ssh_url_to_repo}`, '--output', out, 'main', 'README.md']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(fs.statSync(out).size > 0);
    });

    it('an unknown key is refused at sign-in; an expired key, a blocked user are refused with the reference messages', async () => {
      const unknown = makeKey(t);
      const r = await gitSsh(t, unknown, ['ls-remote', p.ssh_url_to_repo]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Permission denied \(publickey\)/);

      const expiring = await user();
      await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: expiring.id, access_level: 30 } });
      assert.equal((await gitSsh(t, expiring.key, ['ls-remote', p.ssh_url_to_repo])).code, 0);
      // time passes beyond the key's expiry
      await t.c.db.updateTable('keys').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('user_id', '=', expiring.id).execute();
      const expired = await gitSsh(t, expiring.key, ['ls-remote', p.ssh_url_to_repo]);
      assert.notEqual(expired.code, 0);
      assert.match(expired.stderr, /remote: ERROR: Your SSH key has expired\./);
      // and it is not among the user's keys that sign in
      const text = await fetch(`${t.url}/${expiring.username}.keys`);
      assert.equal(text.status, 200);
      assert.equal(await text.text(), '');

      const blocked = await user();
      assert.equal((await t.request('POST', `/api/v4/users/${blocked.id}/block`)).status, 201);
      const b = await runSsh(t, blocked.key, ['-T']);
      assert.equal(b.code, 1);
      assert.equal(b.stderr, framed('Your account has been blocked.'));
    });

    it('a read-only deploy key clones but may not push; a can_push key pushes, but not to a protected branch', async () => {
      const ro = makeKey(t);
      const rw = makeKey(t);
      const add = async (key: TestKey, canPush: boolean) => {
        const r = await t.request('POST', `/api/v4/projects/${p.id}/deploy_keys`, { token: owner.token, body: { title: 'ci', key: key.publicKey, can_push: canPush } });
        assert.equal(r.status, 201, r.text);
      };
      await add(ro, false);
      await add(rw, true);
      const dir = path.join(scratchDir(t, 'dk'), 'repo');
      assert.equal((await gitSsh(t, ro, ['clone', '--quiet', p.ssh_url_to_repo, dir])).code, 0);
      const sha = await commitFiles(t, dir, { 'dk.txt': 'dk\n' }, 'Deploy');
      const refused = await gitSsh(t, ro, ['push', 'origin', 'HEAD:refs/heads/from-ro'], { cwd: dir });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /remote: ERROR: This deploy key does not have write access to this project\./);
      assert.equal(await tip(p.id, 'refs/heads/from-ro'), null);

      const ok = await gitSsh(t, rw, ['push', 'origin', 'HEAD:refs/heads/from-rw'], { cwd: dir });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(await tip(p.id, 'refs/heads/from-rw'), sha);
      const main = await gitSsh(t, rw, ['push', 'origin', 'HEAD:refs/heads/main'], { cwd: dir });
      assert.notEqual(main.code, 0);
      assert.match(main.stderr, /remote: You are not allowed to push code to protected branches on this project\./);

      // a deploy key reads only the projects it is enabled for (and public ones)
      const other = await makeProject(t, owner.token, { name: 'not-for-the-key', visibility: 'private', initialize_with_readme: true });
      const no = await gitSsh(t, ro, ['ls-remote', other.ssh_url_to_repo]);
      assert.notEqual(no.code, 0);
      assert.match(no.stderr, /The project you were looking for could not be found/);
      const pub = await makeProject(t, owner.token, { name: 'public-for-all', visibility: 'public', initialize_with_readme: true });
      assert.equal((await gitSsh(t, ro, ['ls-remote', pub.ssh_url_to_repo])).code, 0);
      const pubPush = await gitSsh(t, rw, ['push', pub.ssh_url_to_repo, 'HEAD:refs/heads/x'], { cwd: dir });
      assert.match(pubPush.stderr, /This deploy key does not have write access to this project\./);
    });

    it('enabled_git_access_protocol=http refuses git over SSH', async () => {
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { enabled_git_access_protocol: 'http' } })).status, 200);
      try {
        const r = await gitSsh(t, owner.key, ['ls-remote', p.ssh_url_to_repo]);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /remote: ERROR: Git access over SSH is not allowed/);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { enabled_git_access_protocol: 'nil' } });
      }
    });
  });
}
