// Every git permission rule gives the same outcome over smart HTTP and over SSH: one table of
// cases (who, which project, what), each run with the real git client through both transports
// (an access token over HTTP, the same user's key over SSH), each outcome asserted alike. The
// rules live once (gitAccess, checkRefUpdates); this shows neither transport bends them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DIALECTS } from '../helpers/build.js';
import { clone, cloneUrl, commitFiles, gitOk, runGit, scratchDir, serverGit, type GitResult } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';
import { addKey, buildSshTestApp, gitSsh, makeKey, type SshTestApp, type TestKey } from '../helpers/ssh.js';

type Who = 'owner' | 'dev' | 'reporter' | 'guest' | 'stranger' | 'external' | 'blocked';
type ProjectName = 'public' | 'internal' | 'private' | 'archived';
type Op = 'clone' | 'push-branch' | 'push-main' | 'push-hex-branch' | 'delete-main' | 'delete-branch' | 'push-tag' | 'push-protected-tag';

interface Case {
  who: Who;
  project: ProjectName;
  op: Op;
  /** 'ok', or what git shows (through either transport) when refused */
  expect: 'ok' | RegExp;
}

const NOT_FOUND = /The project you were looking for could not be found or you don't have permission to view it\./;
const CASES: Case[] = [
  { who: 'stranger', project: 'public', op: 'clone', expect: 'ok' },
  { who: 'stranger', project: 'public', op: 'push-branch', expect: /You are not allowed to push code to this project\./ },
  { who: 'stranger', project: 'internal', op: 'clone', expect: 'ok' },
  { who: 'external', project: 'internal', op: 'clone', expect: NOT_FOUND },
  { who: 'stranger', project: 'private', op: 'clone', expect: NOT_FOUND },
  { who: 'stranger', project: 'private', op: 'push-branch', expect: NOT_FOUND },
  { who: 'guest', project: 'private', op: 'clone', expect: /You are not allowed to download code from this project\./ },
  { who: 'reporter', project: 'private', op: 'clone', expect: 'ok' },
  { who: 'reporter', project: 'private', op: 'push-branch', expect: /You are not allowed to push code to this project\./ },
  { who: 'dev', project: 'private', op: 'push-branch', expect: 'ok' },
  { who: 'dev', project: 'private', op: 'push-main', expect: /You are not allowed to push code to protected branches on this project\./ },
  { who: 'dev', project: 'private', op: 'push-hex-branch', expect: /You cannot create a branch with a 40-character hexadecimal branch name\./ },
  { who: 'dev', project: 'private', op: 'push-tag', expect: 'ok' },
  { who: 'dev', project: 'private', op: 'push-protected-tag', expect: /You are not allowed to create this tag as it is protected\./ },
  { who: 'dev', project: 'private', op: 'delete-branch', expect: 'ok' },
  { who: 'owner', project: 'private', op: 'push-main', expect: 'ok' },
  { who: 'owner', project: 'private', op: 'delete-main', expect: /The default branch of a project cannot be deleted\./ },
  { who: 'owner', project: 'archived', op: 'clone', expect: 'ok' },
  { who: 'owner', project: 'archived', op: 'push-branch', expect: /You are not allowed to push code to an archived project\./ },
  { who: 'blocked', project: 'private', op: 'clone', expect: /Your account has been blocked\./ },
];

type User = { id: number; username: string; token: string; key: TestKey };

for (const dialect of DIALECTS) {
  describe(`git permissions: HTTP and SSH twins (${dialect})`, () => {
    let t: SshTestApp;
    const users = {} as Record<Who, User>;
    const projects = {} as Record<ProjectName, any>;
    let seq = 0;

    before(async () => {
      t = await buildSshTestApp(dialect);
      for (const who of ['owner', 'dev', 'reporter', 'guest', 'stranger', 'external', 'blocked'] as const) {
        const u = await t.createUser(who === 'external' ? { external: true } : {});
        const key = makeKey(t);
        await addKey(t, u.token, key);
        users[who] = { ...u, key };
      }
      for (const v of ['public', 'internal', 'private', 'archived'] as const) {
        projects[v] = await makeProject(t, users.owner.token, { name: `twin-${v}`, visibility: v === 'archived' ? 'private' : v, initialize_with_readme: true });
        for (const [who, level] of [['dev', 30], ['reporter', 20], ['guest', 10], ['blocked', 30]] as const) {
          const r = await t.request('POST', `/api/v4/projects/${projects[v].id}/members`, { token: users.owner.token, body: { user_id: users[who].id, access_level: level } });
          assert.equal(r.status, 201, r.text);
        }
      }
      const tag = await t.request('POST', `/api/v4/projects/${projects.private.id}/protected_tags`, { token: users.owner.token, body: { name: 'release-*' } });
      assert.equal(tag.status, 201, tag.text);
      assert.equal((await t.request('POST', `/api/v4/projects/${projects.archived.id}/archive`, { token: users.owner.token })).status, 201);
      assert.equal((await t.request('POST', `/api/v4/users/${users.blocked.id}/block`)).status, 201);
    });
    after(async () => t.close());

    /** A working copy of the project (cloned by root over HTTP) with a new commit on top of main. */
    async function workTree(p: any): Promise<string> {
      const c = await clone(t, cloneUrl(p.http_url_to_repo, t.rootToken, 'root'));
      assert.equal(c.code, 0, c.stderr);
      await commitFiles(t, c.dir, { [`f${++seq}.txt`]: `${seq}\n` }, `change ${seq}`);
      return c.dir;
    }

    /** Runs one case's git command through one transport. */
    async function run(transport: 'http' | 'ssh', c: Case): Promise<GitResult> {
      const u = users[c.who];
      const p = projects[c.project];
      const url = transport === 'http' ? cloneUrl(p.http_url_to_repo, u.token) : p.ssh_url_to_repo;
      const git = (args: string[], cwd?: string) => (transport === 'http' ? runGit(t, args, { cwd }) : gitSsh(t, u.key, args, { cwd }));
      const name = `${transport}-${++seq}`;
      if (c.op === 'clone') return git(['clone', '--quiet', url, path.join(scratchDir(t, 'twin'), 'repo')]);
      const dir = await workTree(p);
      switch (c.op) {
        case 'push-branch':
          return git(['push', url, `HEAD:refs/heads/${name}`], dir);
        case 'push-main':
          return git(['push', url, 'HEAD:refs/heads/main'], dir);
        case 'push-hex-branch':
          return git(['push', url, `HEAD:refs/heads/${'a'.repeat(39)}${seq % 10}`], dir);
        case 'delete-main':
          return git(['push', url, ':refs/heads/main'], dir);
        case 'delete-branch':
          await gitOk(t, ['push', cloneUrl(p.http_url_to_repo, t.rootToken, 'root'), `HEAD:refs/heads/${name}`], { cwd: dir });
          return git(['push', url, `:refs/heads/${name}`], dir);
        case 'push-tag':
          return git(['push', url, `HEAD:refs/tags/v-${name}`], dir);
        case 'push-protected-tag':
          return git(['push', url, `HEAD:refs/tags/release-${name}`], dir);
      }
    }

    for (const c of CASES) {
      const title = `${c.who} ${c.op} on the ${c.project} project: ${c.expect === 'ok' ? 'allowed' : 'refused'} alike`;
      it(title, async () => {
        const refsBefore = (await serverGit(t, projects[c.project].id, ['for-each-ref'])).stdout;
        const outcomes: Record<string, GitResult> = {};
        for (const transport of ['http', 'ssh'] as const) {
          const r = await run(transport, c);
          outcomes[transport] = r;
          if (c.expect === 'ok') assert.equal(r.code, 0, `${transport}: ${r.stderr}`);
          else {
            assert.notEqual(r.code, 0, `${transport} should be refused`);
            assert.match(r.stderr, c.expect, `${transport}: ${r.stderr}`);
            // a refusal moves no ref
            if (c.op !== 'clone') assert.equal((await serverGit(t, projects[c.project].id, ['for-each-ref'])).stdout, refsBefore, transport);
          }
        }
      });
    }
  });
}
