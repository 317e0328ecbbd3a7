// Releases and their asset links through the API: shapes, tag creation from `ref`, orders,
// upcoming releases, permalinks, who may do what, bad input, and the release hook.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, DIALECTS, EXTERNAL_URL, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { allowLocalHooks, startHookWorkers, startReceiver, type Receiver } from '../helpers/hooks.js';
import type { Queue } from '../../src/queue/queue.js';

type U = { id: number; username: string; token: string };

const RELEASE_KEYS = [
  '_links', 'assets', 'author', 'commit', 'commit_path', 'created_at', 'description', 'evidences', 'name', 'released_at', 'tag_name', 'tag_path',
  'upcoming_release',
];
const LINK_KEYS = ['direct_asset_url', 'external', 'id', 'link_type', 'name', 'url'];

for (const dialect of DIALECTS) {
  describe(`releases (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let dev: U;
    let reporter: U;
    let guest: U;
    let stranger: U;
    let receiver: Receiver;
    let queue: Queue;
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser({ name: 'Olive Owner' });
      dev = await t.createUser();
      reporter = await t.createUser();
      guest = await t.createUser();
      stranger = await t.createUser();
      receiver = await startReceiver();
      await allowLocalHooks(t);
      queue = startHookWorkers(t);
    });
    after(async () => {
      await queue.stop();
      await receiver.close();
      await t.close();
    });

    async function setup(visibility = 'private'): Promise<any> {
      const p = await makeProject(t, owner.token, { name: `r${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, visibility });
      await addMember(t, 'Project', p.id, dev.id, 30);
      await addMember(t, 'Project', p.id, reporter.id, 20);
      await addMember(t, 'Project', p.id, guest.id, 10);
      return p;
    }
    const post = (p: any, body: Record<string, unknown>, token: string | null = dev.token) =>
      t.request('POST', `/api/v4/projects/${p.id}/releases`, { token, body });

    it('creates a release and its tag from ref, with the reference shape, and tells the hook', async () => {
      const p = await setup();
      const hook = await t.request('POST', `/api/v4/projects/${p.id}/hooks`, {
        token: owner.token,
        body: { url: `${receiver.url}/rel`, releases_events: true, push_events: false, token: 'hook-secret' },
      });
      assert.equal(hook.status, 201, hook.text);
      const head = (await t.get(`/api/v4/projects/${p.id}/repository/branches/main`, dev.token)).body.commit.id;
      const r = await post(p, {
        tag_name: 'v1.0',
        ref: 'main',
        name: 'First',
        description: 'Notes',
        tag_message: 'annotated',
        assets: { links: [{ name: 'bin', url: 'https://example.com/bin', filepath: '/bin/app', link_type: 'package' }] },
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), RELEASE_KEYS);
      const web = `${EXTERNAL_URL}/${p.path_with_namespace}`;
      assert.equal(r.body.tag_name, 'v1.0');
      assert.equal(r.body.name, 'First');
      assert.equal(r.body.description, 'Notes');
      assert.equal(r.body.upcoming_release, false);
      assert.equal(r.body.author.username, dev.username);
      assert.deepEqual(keysOf(r.body.author), ['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
      assert.equal(r.body.commit.id, head);
      assert.equal(r.body.commit_path, `/${p.path_with_namespace}/-/commit/${head}`);
      assert.equal(r.body.tag_path, `/${p.path_with_namespace}/-/tags/v1.0`);
      assert.deepEqual(r.body.evidences, []);
      assert.deepEqual(r.body._links, { self: `${web}/-/releases/v1.0`, edit_url: `${web}/-/releases/v1.0/edit` });
      assert.equal(r.body.assets.count, 5);
      assert.deepEqual(r.body.assets.sources.map((s: any) => s.format), ['zip', 'tar.gz', 'tar.bz2', 'tar']);
      assert.equal(r.body.assets.sources[0].url, `${web}/-/archive/v1.0/${p.path}-v1.0.zip`);
      assert.deepEqual(keysOf(r.body.assets.links[0]), LINK_KEYS);
      assert.deepEqual(
        { ...r.body.assets.links[0], id: 0 },
        { id: 0, name: 'bin', url: 'https://example.com/bin', direct_asset_url: `${web}/-/releases/v1.0/downloads/bin/app`, external: true, link_type: 'package' },
      );
      assert.ok(Number.isInteger(r.body.assets.links[0].id));
      // the tag exists, annotated with the message, and the tags API shows its release
      const tag = await t.get(`/api/v4/projects/${p.id}/repository/tags/v1.0`, dev.token);
      assert.equal(tag.status, 200);
      assert.equal(tag.body.message, 'annotated');
      assert.deepEqual(tag.body.release, { tag_name: 'v1.0', description: 'Notes' });
      const bare = await t.get(`/api/v4/projects/${p.id}/repository/tags`, dev.token);
      assert.deepEqual(bare.body[0].release, { tag_name: 'v1.0', description: 'Notes' });

      const [got] = await receiver.waitFor(1, (m) => m.url === '/rel');
      assert.equal(got.headers['x-service-event'], 'Release Hook');
      assert.equal(got.headers['x-service-token'], 'hook-secret');
      assert.equal(got.body.object_kind, 'release');
      assert.equal(got.body.action, 'create');
      assert.equal(got.body.tag, 'v1.0');
      assert.equal(got.body.url, `${web}/-/releases/v1.0`);
      assert.equal(got.body.project.id, p.id);
      assert.equal(got.body.commit.id, head);
      assert.equal(got.body.assets.count, 5);
      assert.deepEqual(got.body.assets.links.map((l: any) => [l.name, l.link_type, l.external]), [['bin', 'package', true]]);
      assert.match(got.body.released_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

      // a change tells the hook too
      const put = await t.request('PUT', `/api/v4/projects/${p.id}/releases/v1.0`, { token: dev.token, body: { description: 'Better notes' } });
      assert.equal(put.status, 200, put.text);
      const [updated] = await receiver.waitFor(1, (m) => m.url === '/rel' && m.body.action === 'update');
      assert.equal(updated.body.description, 'Better notes');
    });

    it('refuses bad input with the reference words', async () => {
      const p = await setup();
      const noRef = await post(p, { tag_name: 'v9' });
      assert.equal(noRef.status, 422);
      assert.deepEqual(noRef.body, { message: 'Ref is not specified' });
      const badRef = await post(p, { tag_name: 'v9', ref: 'nope' });
      assert.equal(badRef.status, 400);
      assert.deepEqual(badRef.body, { message: 'Target nope is invalid' });
      const badName = await post(p, { tag_name: '', ref: 'main' });
      assert.equal(badName.status, 400);
      assert.deepEqual(badName.body, { message: 'Tag name invalid' });
      const missing = await post(p, { ref: 'main' });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { message: '400 (Bad request) "tag_name" not given' });
      const badDate = await post(p, { tag_name: 'v9', ref: 'main', released_at: 'tomorrow' });
      assert.equal(badDate.status, 400);
      assert.deepEqual(badDate.body, { error: 'released_at is invalid' });
      const milestones = await post(p, { tag_name: 'v9', ref: 'main', milestones: ['m1', 'm2'] });
      assert.equal(milestones.status, 400);
      assert.deepEqual(milestones.body, { message: 'Milestone(s) not found: m1, m2' });
      const badLinkType = await post(p, { tag_name: 'v9', ref: 'main', assets: { links: [{ name: 'a', url: 'https://x.test/a', link_type: 'movie' }] } });
      assert.equal(badLinkType.status, 400);
      const dupLinks = await post(p, {
        tag_name: 'v9',
        ref: 'main',
        assets: { links: [{ name: 'a', url: 'https://x.test/a' }, { name: 'a', url: 'https://x.test/b' }] },
      });
      assert.equal(dupLinks.status, 400);
      assert.deepEqual(dupLinks.body, { message: 'Validation failed: Links name has already been taken' });
      // nothing above made the tag
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/tags/v9`, dev.token)).status, 404);

      assert.equal((await post(p, { tag_name: 'v1', ref: 'main' })).status, 201);
      const again = await post(p, { tag_name: 'v1', ref: 'main' });
      assert.equal(again.status, 409);
      assert.deepEqual(again.body, { message: 'Release already exists' });
    });

    it('lets developers change releases, reporters and guests read what they may, strangers nothing', async () => {
      const p = await setup();
      assert.equal((await post(p, { tag_name: 'v1', ref: 'main' })).status, 201);
      const base = `/api/v4/projects/${p.id}/releases`;
      // reporters read everything, guests the list without the code's parts
      const asReporter = await t.get(`${base}/v1`, reporter.token);
      assert.equal(asReporter.status, 200);
      assert.equal(asReporter.body._links.edit_url, undefined);
      assert.equal((await t.get(`${base}/v1`, guest.token)).status, 403);
      const guestList = await t.get(base, guest.token);
      assert.equal(guestList.status, 200);
      assert.deepEqual(keysOf(guestList.body[0]), ['_links', 'assets', 'author', 'created_at', 'description', 'name', 'released_at', 'upcoming_release']);
      assert.deepEqual(guestList.body[0].assets, { count: 0, links: [] });
      for (const token of [stranger.token, null]) {
        assert.deepEqual((await t.get(base, token)).body, { message: '404 Project Not Found' });
        assert.equal((await post(p, { tag_name: 'v2', ref: 'main' }, token)).status, 404);
      }
      const byReporter = await post(p, { tag_name: 'v2', ref: 'main' }, reporter.token);
      assert.equal(byReporter.status, 403);
      assert.deepEqual(byReporter.body, { message: '403 Forbidden' });
      assert.equal((await t.request('PUT', `${base}/v1`, { token: reporter.token, body: { name: 'x' } })).status, 403);
      assert.equal((await t.request('DELETE', `${base}/v1`, { token: reporter.token })).status, 403);
      const badToken = await t.get(base, 'not-a-token');
      assert.equal(badToken.status, 401);

      // a public project: anyone reads, nobody outside writes
      const pub = await setup('public');
      assert.equal((await post(pub, { tag_name: 'v1', ref: 'main' })).status, 201);
      const anon = await t.get(`/api/v4/projects/${pub.id}/releases/v1`, null);
      assert.equal(anon.status, 200);
      assert.equal(anon.body.tag_name, 'v1');
      assert.equal((await post(pub, { tag_name: 'v2', ref: 'main' }, null)).status, 403);
      assert.equal((await post(pub, { tag_name: 'v2', ref: 'main' }, stranger.token)).status, 403);

      // a protected tag needs the right to create it
      const prot = await t.request('POST', `/api/v4/projects/${p.id}/protected_tags`, { token: owner.token, body: { name: 'stable-*' } });
      assert.equal(prot.status, 201, prot.text);
      const refused = await post(p, { tag_name: 'stable-1', ref: 'main' });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { message: 'You are not allowed to create this tag as it is protected.' });
      assert.equal((await post(p, { tag_name: 'stable-1', ref: 'main' }, owner.token)).status, 201);
    });

    it('orders, shows upcoming releases, updates and deletes', async () => {
      const p = await setup();
      const base = `/api/v4/projects/${p.id}/releases`;
      assert.equal((await post(p, { tag_name: 'old', ref: 'main', released_at: '2020-01-02 03:04:05' })).status, 201);
      const future = await post(p, { tag_name: 'next', ref: 'main', released_at: '2999-01-01T00:00:00+02:00' });
      assert.equal(future.status, 201);
      assert.equal(future.body.released_at, '2998-12-31T22:00:00.000Z');
      assert.equal(future.body.upcoming_release, true);
      assert.equal((await post(p, { tag_name: 'mid', ref: 'main' })).status, 201);

      const byReleased = await t.get(base, dev.token);
      assert.deepEqual(byReleased.body.map((r: any) => r.tag_name), ['next', 'mid', 'old']);
      assert.equal(byReleased.headers['x-total'], '3');
      assert.equal((await t.get(`${base}?order_by=created_at&sort=asc`, dev.token)).body.map((r: any) => r.tag_name).join(), 'old,next,mid');
      assert.equal((await t.get(`${base}?per_page=1&page=2`, dev.token)).body[0].tag_name, 'mid');
      assert.equal((await t.get(`${base}?order_by=name`, dev.token)).status, 400);
      const old = (await t.get(`${base}/old`, dev.token)).body;
      assert.equal(old.released_at, '2020-01-02T03:04:05.000Z');

      const put = await t.request('PUT', `${base}/old`, { token: dev.token, body: { name: 'Renamed', released_at: '2021-01-01T00:00:00Z' } });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.name, 'Renamed');
      assert.equal(put.body.released_at, '2021-01-01T00:00:00.000Z');
      const empty = await t.request('PUT', `${base}/old`, { token: dev.token, body: {} });
      assert.equal(empty.status, 400);
      assert.deepEqual(empty.body, { message: 'params is empty' });
      assert.equal((await t.request('PUT', `${base}/none`, { token: dev.token, body: { name: 'x' } })).status, 403);
      assert.deepEqual((await t.get(`${base}/none`, dev.token)).body, { message: '404 Not Found' });

      const del = await t.request('DELETE', `${base}/old`, { token: dev.token });
      assert.equal(del.status, 200);
      assert.equal(del.body.name, 'Renamed');
      assert.equal((await t.request('DELETE', `${base}/old`, { token: dev.token })).status, 403);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/tags/old`, dev.token)).status, 200, 'the tag stays');
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/tags/old`, dev.token)).body.release, null);
    });

    it('manages asset links and leads permanent paths and the latest permalink to their targets', async () => {
      const p = await setup();
      assert.equal((await post(p, { tag_name: 'v1', ref: 'main' })).status, 201);
      assert.equal((await post(p, { tag_name: 'v2', ref: 'main' })).status, 201);
      const links = `/api/v4/projects/${p.id}/releases/v2/assets/links`;
      const web = `${EXTERNAL_URL}/${p.path_with_namespace}`;
      const a = await t.request('POST', links, { token: dev.token, body: { name: 'linux', url: `${web}/-/jobs/1/artifacts/file/app`, filepath: '/bin/linux' } });
      assert.equal(a.status, 201, a.text);
      assert.deepEqual(keysOf(a.body), LINK_KEYS);
      assert.equal(a.body.external, false);
      assert.equal(a.body.link_type, 'other');
      assert.equal(a.body.direct_asset_url, `${web}/-/releases/v2/downloads/bin/linux`);
      const b = await t.request('POST', links, { token: dev.token, body: { name: 'docs', url: 'https://docs.test/v2', link_type: 'runbook' } });
      assert.equal(b.status, 201);
      assert.equal(b.body.direct_asset_url, 'https://docs.test/v2');

      const dup = await t.request('POST', links, { token: dev.token, body: { name: 'linux', url: 'ftp://x.test/y', filepath: '/bin/linux' } });
      assert.equal(dup.status, 400);
      assert.deepEqual(dup.body, { message: { name: ['has already been taken'], filepath: ['has already been taken'] } });
      const badUrl = await t.request('POST', links, { token: dev.token, body: { name: 'z', url: 'javascript:alert(1)' } });
      assert.deepEqual(badUrl.body, { message: { url: ['is blocked: Only allowed schemes are http, https, ftp'] } });
      const badPath = await t.request('POST', links, { token: dev.token, body: { name: 'z', url: 'https://z.test', filepath: 'no-slash' } });
      assert.deepEqual(badPath.body, { message: { filepath: ['is in an invalid format'] } });
      const noUrl = await t.request('POST', links, { token: dev.token, body: { name: 'z' } });
      assert.deepEqual(noUrl.body, { message: '400 (Bad request) "url" not given' });
      assert.equal((await t.request('POST', links, { token: reporter.token, body: { name: 'z', url: 'https://z.test' } })).status, 403);

      const list = await t.get(links, reporter.token);
      assert.deepEqual(list.body.map((l: any) => l.name), ['docs', 'linux']);
      assert.equal((await t.get(`${links}/${a.body.id}`, guest.token)).body.name, 'linux');
      assert.deepEqual((await t.get(`${links}/999999`, dev.token)).body, { message: '404 Not found' });
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/releases/nope/assets/links`, dev.token)).body, { message: '404 Not found' });
      const put = await t.request('PUT', `${links}/${b.body.id}`, { token: dev.token, body: { name: 'manual', link_type: 'image' } });
      assert.equal(put.status, 200);
      assert.deepEqual([put.body.name, put.body.link_type, put.body.url], ['manual', 'image', 'https://docs.test/v2']);
      const none = await t.request('PUT', `${links}/${b.body.id}`, { token: dev.token, body: { link_type: 'image' } });
      assert.deepEqual(none.body, { error: 'name, url are missing, at least one parameter must be provided' });
      const clash = await t.request('PUT', `${links}/${b.body.id}`, { token: dev.token, body: { name: 'linux' } });
      assert.deepEqual(clash.body, { message: { name: ['has already been taken'] } });

      // the permanent path of an asset, and the newest release
      const dl = await t.get(`/api/v4/projects/${p.id}/releases/v2/downloads/bin/linux`, reporter.token);
      assert.equal(dl.status, 302);
      assert.equal(dl.headers.location, `${web}/-/jobs/1/artifacts/file/app`);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/releases/v2/downloads/bin/none`, reporter.token)).status, 404);
      const latest = await t.get(`/api/v4/projects/${p.id}/releases/permalink/latest?order_by=x&include_html_description=true`, reporter.token);
      assert.equal(latest.status, 302);
      assert.equal(latest.headers.location, `/api/v4/projects/${p.id}/releases/v2?include_html_description=true`);
      const suffixed = await t.get(`/api/v4/projects/${p.id}/releases/permalink/latest/downloads/bin/linux`, reporter.token);
      assert.equal(suffixed.headers.location, `/api/v4/projects/${p.id}/releases/v2/downloads/bin/linux`);

      const del = await t.request('DELETE', `${links}/${a.body.id}`, { token: dev.token });
      assert.equal(del.status, 200);
      assert.equal(del.body.name, 'linux');
      assert.equal((await t.get(`/api/v4/projects/${p.id}/releases/v2`, dev.token)).body.assets.count, 5);

      const empty = await setup();
      assert.equal((await t.get(`/api/v4/projects/${empty.id}/releases/permalink/latest`, dev.token)).status, 404);
    });
  });
}
