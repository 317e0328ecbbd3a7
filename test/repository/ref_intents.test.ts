// Every ref change gets its push event, its hook deliveries and its pipeline exactly once, even
// when the server is killed (SIGKILL) after the ref moved and before the change was published: a
// real server process, stopped at that moment by the test-only ANVIL_TEST_CRASH_BEFORE_REF_PUBLISH,
// then started again on the same data dir and database. Normal pushes publish once too.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, ROOT_TOKEN, freshPostgresUrl } from '../helpers/build.js';
import { startReceiver, type Received } from '../helpers/hooks.js';
import { waitFor } from '../helpers/queue.js';
import { startServer } from '../../bench/server.js';

type Server = Awaited<ReturnType<typeof startServer>>;

async function api(url: string, method: string, p: string, body?: unknown) {
  const r = await fetch(`${url}/api/v4${p}`, {
    method,
    headers: { 'private-token': ROOT_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

function git(cwd: string, home: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env: { ...process.env, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

const CI = 'build:\n  script:\n    - echo built\n';

for (const dialect of DIALECTS) {
  describe(`ref changes survive a killed server (${dialect})`, () => {
    it('a git push and a branch creation, each killed before publishing: one event, one hook delivery, one pipeline each after a restart', async () => {
      const pgDb = dialect === 'postgres' ? await freshPostgresUrl() : null;
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-refkill-'));
      const work = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-refkill-git-'));
      const rx = await startReceiver();
      const env = { ANVIL_ROOT_TOKEN: ROOT_TOKEN, ANVIL_DATA_DIR: dataDir, ANVIL_RUNNER_ENABLED: 'false', ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}) };
      // a crashing node runs no queue workers: the recovery job must run on the restarted one
      const crashing = { ...env, ANVIL_QUEUE_WORKERS: '0', ANVIL_TEST_CRASH_BEFORE_REF_PUBLISH: 'true' };
      const servers: Server[] = [];
      const start = async (e: Record<string, string>) => {
        const s = await startServer({ env: e });
        servers.push(s);
        return s;
      };
      try {
        let s = await start({ ...env, ANVIL_QUEUE_WORKERS: '2' });
        assert.equal((await api(s.url, 'PUT', '/application/settings', { allow_local_requests_from_web_hooks_and_services: true })).status, 200);
        const project = await api(s.url, 'POST', '/projects', { name: 'Durable' });
        assert.equal(project.status, 201);
        const id = project.body.id as number;
        assert.equal((await api(s.url, 'POST', `/projects/${id}/hooks`, { url: `${rx.url}/push`, push_events: true, token: 'k' })).status, 201);

        const pushEvents = async (url: string) => ((await api(url, 'GET', `/projects/${id}/events?action=pushed&per_page=100`)).body as any[]).map((e) => e.push_data);
        const hooksFor = (ref: string, after: string) => rx.received.filter((r: Received) => r.body?.ref === ref && r.body?.after === after);
        const pipelinesFor = async (url: string, ref: string, sha: string) => ((await api(url, 'GET', `/projects/${id}/pipelines?ref=${ref}&sha=${sha}`)).body as any[]).length;
        /** Waits until the change has its event, delivery and pipeline, then (after a pause for duplicates) counts each. */
        const published = async (url: string, ref: string, sha: string, action: string) => {
          const short = ref.replace('refs/heads/', '');
          const count = async () => ({
            events: (await pushEvents(url)).filter((p) => p.ref === short && p.commit_to === sha && p.action === action).length,
            hooks: hooksFor(ref, sha).length,
            pipelines: await pipelinesFor(url, short, sha),
          });
          let n = { events: 0, hooks: 0, pipelines: 0 };
          await waitFor(`${action} ${short} published`, async () => {
            n = await count();
            return n.events > 0 && n.hooks > 0 && n.pipelines > 0;
          }, 60_000).catch((err: Error) => assert.fail(`${err.message}: ${JSON.stringify(n)}`));
          await new Promise((r) => setTimeout(r, 1500));
          return count();
        };

        // the normal path: a commit through the API and a git push, each published once, and no
        // second publication by the recovery job (which waits five seconds: it is dropped)
        const first = await api(s.url, 'POST', `/projects/${id}/repository/commits`, {
          branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }],
        });
        assert.equal(first.status, 201);
        const remote = `http://root:${ROOT_TOKEN}@127.0.0.1:${s.port}/root/durable.git`;
        const clone = path.join(work, 'c');
        assert.equal((await git(work, work, ['clone', '-q', remote, clone])).code, 0);
        const commit = async (msg: string) => {
          fs.writeFileSync(path.join(clone, 'f.txt'), msg);
          await git(clone, work, ['add', '.']);
          await git(clone, work, ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', msg]);
          return (await git(clone, work, ['rev-parse', 'HEAD'])).out.trim();
        };
        const pushed = await commit('normal push');
        const push = await git(clone, work, ['push', '-q', remote, 'main']);
        assert.equal(push.code, 0, push.out);
        assert.deepEqual(await published(s.url, 'refs/heads/main', first.body.id, 'created'), { events: 1, hooks: 1, pipelines: 1 });
        await new Promise((r) => setTimeout(r, 5000)); // past the recovery job's time
        assert.deepEqual(await published(s.url, 'refs/heads/main', pushed, 'pushed'), { events: 1, hooks: 1, pipelines: 1 });
        await s.stop();

        // a git push: the ref moves, then the server dies before publishing
        s = await start(crashing);
        const lost = await commit('pushed as the server died');
        const remote2 = `http://root:${ROOT_TOKEN}@127.0.0.1:${s.port}/root/durable.git`;
        await git(clone, work, ['push', '-q', remote2, 'main']);
        assert.equal(await s.exited, 'SIGKILL', 'the server was killed before publishing');

        // a branch created through the API: the same
        s = await start(crashing);
        await assert.rejects(api(s.url, 'POST', `/projects/${id}/repository/branches`, { branch: 'feature', ref: 'main' }));
        assert.equal(await s.exited, 'SIGKILL', 'the server was killed before publishing');

        // the restarted server publishes both, once
        s = await start({ ...env, ANVIL_QUEUE_WORKERS: '2' });
        assert.equal((await api(s.url, 'GET', `/projects/${id}/repository/branches/main`)).body.commit.id, lost, 'the push moved main');
        assert.equal((await api(s.url, 'GET', `/projects/${id}/repository/branches/feature`)).body.commit.id, lost, 'the branch was created');
        assert.deepEqual(await published(s.url, 'refs/heads/main', lost, 'pushed'), { events: 1, hooks: 1, pipelines: 1 });
        assert.deepEqual(await published(s.url, 'refs/heads/feature', lost, 'created'), { events: 1, hooks: 1, pipelines: 1 });
        const hook = hooksFor('refs/heads/main', lost)[0]!;
        assert.equal(hook.body.before, pushed);
        assert.equal(hook.body.user_username, 'root');
        assert.deepEqual(hook.body.commits.map((c: { id: string }) => c.id), [lost]);
        // every change so far, once: 2 on the normal path, 2 recovered
        assert.equal((await pushEvents(s.url)).length, 4);
      } finally {
        for (const srv of servers) if (srv.proc.exitCode === null && srv.proc.signalCode === null) await srv.stop();
        await rx.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
        fs.rmSync(work, { recursive: true, force: true });
        await pgDb?.drop();
      }
    });
  });
}
