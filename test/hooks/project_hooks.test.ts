// Project webhooks that deliver: push (with the branch filter), tag push, pipeline and job events,
// the test endpoint, the log and resend, retries and the reference's auto-disabling, and a slow
// receiver that never slows the API.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { CI_FILE, SIMPLE_CI, createPipelineOk, putFiles } from '../helpers/ci.js';
import { buildGitTestApp, cloneUrl, commitFiles, gitOk, initWorkTree, type GitTestApp } from '../helpers/git.js';
import { allowLocalHooks, startHookWorkers, startReceiver, type Receiver } from '../helpers/hooks.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { waitFor } from '../helpers/queue.js';
import type { Queue } from '../../src/queue/queue.js';

const PUSH_KEYS = [
  'after', 'before', 'checkout_sha', 'commits', 'event_name', 'message', 'object_kind', 'project', 'project_id', 'push_options', 'ref', 'ref_protected',
  'repository', 'total_commits_count', 'user_avatar', 'user_email', 'user_id', 'user_name', 'user_username',
];

for (const dialect of DIALECTS) {
  describe(`project hooks deliver (${dialect})`, () => {
    let t: GitTestApp;
    let rx: Receiver;
    let queue: Queue;
    let owner: { id: number; username: string; token: string };
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_HOOK_RETRY_BASE_MS: '200' });
      rx = await startReceiver();
      await allowLocalHooks(t);
      owner = await t.createUser();
      queue = startHookWorkers(t, 4);
    });
    after(async () => {
      await queue.stop();
      await rx.close();
      await t.close();
    });

    const addHook = async (projectId: number, body: Record<string, unknown>) => {
      const r = await t.request('POST', `/api/v4/projects/${projectId}/hooks`, { token: owner.token, body });
      assert.equal(r.status, 201, r.text);
      return r.body;
    };

    it('push (branch filter), tag push, pipeline and job events arrive once each with their headers', async () => {
      const sysPush = await t.request('POST', '/api/v4/hooks', { body: { url: `${rx.url}/sys-push`, push_events: true, tag_push_events: true } });
      const sysQuiet = await t.request('POST', '/api/v4/hooks', { body: { url: `${rx.url}/sys-quiet`, repository_update_events: false } });
      const p = await makeProject(t, owner.token, { name: 'deliver', initialize_with_readme: true });
      await addHook(p.id, { url: `${rx.url}/all`, token: 'ptok', push_events: true, tag_push_events: true, pipeline_events: true, job_events: true });
      await addHook(p.id, { url: `${rx.url}/filtered`, push_events: true, push_events_branch_filter: 'release/*' });

      const sha = await putFiles(t, p.id, { 'a.txt': 'a\n' }, { token: owner.token, message: 'add a' });
      const [push] = await rx.waitFor(1, (r) => r.url === '/all' && r.headers['x-service-event'] === 'Push Hook');
      assert.deepEqual(keysOf(push.body), PUSH_KEYS);
      assert.equal(push.body.object_kind, 'push');
      assert.equal(push.body.ref, 'refs/heads/main');
      assert.equal(push.body.after, sha);
      assert.equal(push.body.checkout_sha, sha);
      assert.equal(push.body.total_commits_count, 1);
      assert.equal(push.body.user_username, owner.username);
      assert.equal(push.body.project.path_with_namespace, `${owner.username}/deliver`);
      assert.equal(push.body.project.git_http_url, `${t.url}/${owner.username}/deliver.git`);
      assert.deepEqual(push.body.commits.map((c: any) => [c.id, c.title, c.added]), [[sha, 'add a', ['a.txt']]]);
      assert.equal(push.body.commits[0].url, `${t.url}/${owner.username}/deliver/-/commit/${sha}`);
      assert.equal(push.headers['x-service-token'], 'ptok');
      assert.equal(push.headers['content-type'], 'application/json');

      // The filter lets release/* through and nothing else.
      await putFiles(t, p.id, { 'b.txt': 'b\n' }, { token: owner.token, branch: 'release/1.0', startBranch: 'main', message: 'release' });
      const [filtered] = await rx.waitFor(1, (r) => r.url === '/filtered');
      assert.equal(filtered.body.ref, 'refs/heads/release/1.0');
      await rx.waitFor(2, (r) => r.url === '/all' && r.headers['x-service-event'] === 'Push Hook');
      assert.equal(rx.received.filter((r) => r.url === '/filtered').length, 1);

      // A tag pushed with the real git client.
      const dir = await initWorkTree(t, cloneUrl(p.http_url_to_repo, owner.token));
      await gitOk(t, ['fetch', '--quiet', 'origin', 'main'], { cwd: dir });
      await gitOk(t, ['checkout', '--quiet', '-B', 'main', 'FETCH_HEAD'], { cwd: dir });
      await commitFiles(t, dir, { 'c.txt': 'c' }, 'for the tag');
      await gitOk(t, ['tag', '-a', 'v1.0', '-m', 'Version one'], { cwd: dir });
      await gitOk(t, ['push', '--quiet', 'origin', 'main', 'v1.0'], { cwd: dir });
      const [tag] = await rx.waitFor(1, (r) => r.url === '/all' && r.headers['x-service-event'] === 'Tag Push Hook');
      assert.equal(tag.body.object_kind, 'tag_push');
      assert.equal(tag.body.ref, 'refs/tags/v1.0');
      assert.equal(tag.body.message, 'Version one');

      // A pipeline: pipeline and job events as the statuses move.
      await putFiles(t, p.id, { [CI_FILE]: SIMPLE_CI }, { token: owner.token });
      const pipeline = await createPipelineOk(t, p.id, 'main', { token: owner.token });
      const [pe] = await rx.waitFor(1, (r) => r.headers['x-service-event'] === 'Pipeline Hook' && r.body.object_attributes.id === pipeline.id);
      assert.equal(pe.body.object_kind, 'pipeline');
      assert.deepEqual(pe.body.object_attributes.stages, ['build', 'test']);
      assert.deepEqual(pe.body.builds.map((b: any) => b.name).sort(), ['build-job', 'test-job']);
      assert.equal(pe.body.project.id, p.id);
      assert.match(pe.body.object_attributes.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      const [je] = await rx.waitFor(1, (r) => r.headers['x-service-event'] === 'Job Hook' && r.body.pipeline_id === pipeline.id);
      assert.equal(je.body.object_kind, 'build');
      assert.equal(je.body.build_name, 'build-job');
      assert.equal(je.body.build_status, 'pending');

      // System hooks: push and tag push by their flags (the same body without commits), and the repository update.
      const sysFor = (kind: string) => (r: { url: string; body: any }) => r.url === '/sys-push' && r.body.event_name === kind;
      const [sysPushed] = await rx.waitFor(1, (r) => sysFor('push')(r) && r.body.after === sha);
      assert.equal(sysPushed.headers['x-service-event'], 'System Hook');
      assert.deepEqual(sysPushed.body, { ...push.body, commits: [] });
      const [sysTag] = await rx.waitFor(1, sysFor('tag_push'));
      assert.equal(sysTag.body.ref, 'refs/tags/v1.0');
      const [update] = await rx.waitFor(1, (r) => sysFor('repository_update')(r) && r.body.refs.includes('refs/heads/release/1.0'));
      assert.deepEqual(Object.keys(update.body).sort(), ['changes', 'event_name', 'project', 'project_id', 'refs', 'user_avatar', 'user_email', 'user_id', 'user_name']);
      assert.equal(update.body.changes[0].ref, 'refs/heads/release/1.0');
      assert.equal(update.body.project_id, p.id);
      assert.ok(!rx.received.some((r) => r.url === '/sys-quiet' && ['push', 'tag_push', 'repository_update'].includes(r.body.event_name)));
      await t.request('DELETE', `/api/v4/hooks/${sysPush.body.id}`);
      await t.request('DELETE', `/api/v4/hooks/${sysQuiet.body.id}`);

      // Each event once: event UUIDs at one URL never repeat.
      const all = rx.received.filter((r) => r.url === '/all');
      assert.equal(new Set(all.map((r) => r.headers['x-service-event-uuid'])).size, all.length);
    });

    it('test endpoint, log and resend; bad triggers, roles and ids', async () => {
      const p = await makeProject(t, owner.token, { name: 'testing' });
      const h = await addHook(p.id, { url: `${rx.url}/t`, token: 'ttok' });
      const empty = await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/test/push_events`, { token: owner.token });
      assert.equal(empty.status, 422);
      assert.deepEqual(empty.body, { message: 'Ensure the project has at least one commit.' });
      await putFiles(t, p.id, { 'x.txt': 'x' }, { token: owner.token });
      const ok = await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/test/push_events`, { token: owner.token });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(ok.body, { message: '201 Created' });
      const [sample] = await rx.waitFor(1, (r) => r.url === '/t');
      assert.equal(sample.body.object_kind, 'push');
      assert.equal(sample.headers['x-service-event'], 'Push Hook');
      const bad = await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/test/nonsense`, { token: owner.token });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'trigger does not have a valid value' });
      assert.deepEqual((await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/test/pipeline_events`, { token: owner.token })).body, {
        message: 'Ensure the project has CI pipelines.',
      });

      const log = await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}/events`, owner.token);
      assert.equal(log.status, 200);
      const entry = log.body.find((e: any) => e.response_status === '200');
      assert.equal(entry.trigger, 'push_hooks');
      assert.equal(entry.request_headers['X-Service-Token'], '[REDACTED]');
      assert.ok(!log.text.includes('ttok'));
      const resend = await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/events/${entry.id}/resend`, { token: owner.token });
      assert.equal(resend.status, 201);
      assert.deepEqual(resend.body, { response_status: 200 });
      await rx.waitFor(2, (r) => r.url === '/t');

      const dev = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, 30);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}/events`, dev.token)).status, 403);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/test/push_events`, { token: dev.token })).status, 403);
      const stranger = await t.createUser();
      assert.equal((await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}/events`, stranger.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}/events`, null)).status, 401);
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/hooks/999999/events`, owner.token)).body, { message: '404 Not found' });
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/events/999999/resend`, { token: owner.token })).status, 404);
      // Refused URLs: 422 before anything is stored.
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
      const refused = await t.request('POST', `/api/v4/projects/${p.id}/hooks`, { token: owner.token, body: { url: 'http://0x7f000001:8080/' } });
      await allowLocalHooks(t);
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body, { error: 'Invalid url given' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/hooks`, owner.token)).body.length, 1);
    });

    it('a failing receiver sees retries with back-off, then the hook is disabled; a successful test enables it; 4xx is not retried', async () => {
      const p = await makeProject(t, owner.token, { name: 'failing', initialize_with_readme: true });
      const h = await addHook(p.id, { url: `${rx.url}/fail` });
      rx.respond(500);
      try {
        await putFiles(t, p.id, { 'f.txt': '1' }, { token: owner.token });
        // Four failures in a row disable the hook; the fifth attempt is then not made.
        const tries = await rx.waitFor(4, (r) => r.url === '/fail', 30_000);
        const gaps = tries.slice(1).map((r, i) => r.at - tries[i].at);
        assert.ok(gaps[2] > gaps[0], `back-off grows: ${gaps.join(', ')} ms`);
        const shown = await waitFor('the hook to be disabled', async () => {
          const r = await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}`, owner.token);
          return r.body.alert_status === 'temporarily_disabled' ? r.body : null;
        });
        const until = Date.parse(shown.disabled_until);
        assert.ok(until > Date.now() + 30_000 && until <= Date.now() + 61_000, shown.disabled_until);
        await waitFor('the delivery to fail for good', async () =>
          (await t.c.db.selectFrom('hook_deliveries').select('state').where('hook_id', '=', h.id).executeTakeFirst())?.state === 'failed');
        assert.equal(rx.received.filter((r) => r.url === '/fail').length, 4);
        const log = await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}/events`, owner.token);
        assert.deepEqual(log.body.map((e: any) => e.response_status), ['500', '500', '500', '500']);

        // A test that fails counts too; forty failures in a row disable the hook for good.
        for (let i = 0; i < 36; i++) await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/test/push_events`, { token: owner.token });
        const gone = (await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}`, owner.token)).body;
        assert.equal(gone.alert_status, 'disabled');
        assert.equal(gone.disabled_until, null);

        rx.respond(200);
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.id}/test/push_events`, { token: owner.token })).status, 201);
        const back = (await t.get(`/api/v4/projects/${p.id}/hooks/${h.id}`, owner.token)).body;
        assert.equal(back.alert_status, 'executable');
        assert.equal(back.disabled_until, null);

        rx.respond(404);
        const before404 = rx.received.filter((r) => r.url === '/fail').length;
        await putFiles(t, p.id, { 'f.txt': '2' }, { token: owner.token });
        await rx.waitFor(before404 + 1, (r) => r.url === '/fail');
        await waitFor('the 404 delivery to settle', async () => (await t.c.db.selectFrom('hook_deliveries').select('state').where('hook_id', '=', h.id).orderBy('id', 'desc').executeTakeFirst())?.state === 'failed');
        await new Promise((r) => setTimeout(r, 800));
        assert.equal(rx.received.filter((r) => r.url === '/fail').length, before404 + 1);
      } finally {
        rx.respond(200);
      }
    });

    it('a receiver that answers after 7 s does not hold up the API; at most two deliveries per hook at once', async () => {
      const p = await makeProject(t, owner.token, { name: 'slow', initialize_with_readme: true });
      await addHook(p.id, { url: `${rx.url}/slow` });
      // The receiver answers after 7 s (within the 10 s delivery timeout): a call that waited for it would take longer.
      const ANSWER_MS = 7000;
      rx.respond(200, ANSWER_MS);
      try {
        for (let i = 0; i < 4; i++) {
          const started = Date.now();
          await putFiles(t, p.id, { [`s${i}.txt`]: 'x' }, { token: owner.token });
          const r = await t.get(`/api/v4/projects/${p.id}`, owner.token);
          assert.equal(r.status, 200);
          assert.ok(Date.now() - started < ANSWER_MS, `API call ${i} waited for the receiver (${Date.now() - started} ms)`);
        }
        await rx.waitFor(4, (r) => r.url === '/slow', 90_000);
        // Never more than two at once: the third arrived only after the first had been answered.
        const slow = rx.received.filter((r) => r.url === '/slow').sort((a, b) => a.at - b.at);
        assert.ok(slow[2].at >= slow[0].at + ANSWER_MS - 500, `third delivery started ${slow[2].at - slow[0].at} ms after the first`);
      } finally {
        rx.respond(200);
      }
    });
  });
}
