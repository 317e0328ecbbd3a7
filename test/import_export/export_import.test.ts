// Project export and import through the API, as a client drives them: status, download, import,
// a round trip compared field by field, the reference's own fixture, hostile archives, and the
// rules (roles, settings, limits).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember } from '../helpers/projects.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { putFiles, plannedJob } from '../helpers/ci.js';
import { refSha, setRef } from '../helpers/repository.js';
import { fixtureArchive, postImport, runImportExportJobs } from '../helpers/import_export.js';
import { paxPath, rawTar, rawTarGz } from '../helpers/tar.js';
import { multipart, PNG } from '../helpers/project_resources.js';
import { insertFinishedPipelinesBulk } from '../../src/db/repos/bulk_ci.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { gitText } from '../../src/git/git.js';
import { EXPORTS_EXPIRE_JOB } from '../../src/domain/import_export/export.js';
import { registerBackgroundJobs, scheduleRecurring } from '../../src/domain/background.js';
import { findExport } from '../../src/db/repos/project_import_export.js';
import { testQueue, waitFor } from '../helpers/queue.js';

const STATUS_KEYS = ['created_at', 'description', 'export_status', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace'];
const IMPORT_KEYS = ['correlation_id', 'created_at', 'description', 'failed_relations', 'id', 'import_error', 'import_status', 'import_type', 'name', 'name_with_namespace', 'path', 'path_with_namespace'];

const refsOf = (t: TestApp, id: number) => gitText(['for-each-ref', '--format=%(refname) %(objectname)'], { gitDir: repositoryDir(t.c, id) });

/** Everything of a project a user compares after a round trip (ids, names and paths apart). */
async function snapshot(t: TestApp, id: number) {
  const p = (await t.get(`/api/v4/projects/${id}`)).body;
  const { id: _i, name: _n, path: _p, path_with_namespace: _pw, name_with_namespace: _nn, web_url: _w, http_url_to_repo: _h, ssh_url_to_repo: _s,
    created_at: _c, last_activity_at: _l, _links: _lk, readme_url: _r, runners_token: _rt, import_status: _is, import_error: _ie, permissions: _pe,
    creator_id: _cr, container_registry_image_prefix: _crp, avatar_url: avatar, ...attributes } = p;
  attributes.avatar = avatar ? String(avatar).split('/').pop() : null;
  const protectedBranches = (await t.get(`/api/v4/projects/${id}/protected_branches`)).body.map((b: any) => ({
    name: b.name, allow_force_push: b.allow_force_push, code_owner_approval_required: b.code_owner_approval_required,
    push: b.push_access_levels.map((l: any) => [l.access_level, l.user_id, l.group_id]),
    merge: b.merge_access_levels.map((l: any) => [l.access_level, l.user_id, l.group_id]),
  }));
  const members = (await t.get(`/api/v4/projects/${id}/members`)).body.map((m: any) => [m.username, m.access_level]).sort();
  const customAttributes = (await t.get(`/api/v4/projects/${id}/custom_attributes`)).body;
  const pipelines = (await t.get(`/api/v4/projects/${id}/pipelines?per_page=100&sort=asc`)).body.map((pl: any) => {
    const { id: _pid, project_id: _pp, web_url: _pw2, ...rest } = pl;
    return rest;
  });
  const jobs = [];
  for (const pl of (await t.get(`/api/v4/projects/${id}/pipelines?per_page=100&sort=asc`)).body) {
    for (const j of (await t.get(`/api/v4/projects/${id}/pipelines/${pl.id}/jobs?per_page=100`)).body) {
      jobs.push([pl.iid, j.name, j.stage, j.status, j.ref, j.created_at, j.started_at, j.finished_at, j.duration, j.user?.username ?? null]);
    }
  }
  const badges = (await t.get(`/api/v4/projects/${id}/badges`)).body.map((b: any) => [b.name, b.link_url, b.image_url, b.kind]);
  return { attributes, protectedBranches, members, customAttributes, badges, pipelines, jobs, refs: await refsOf(t, id) };
}

for (const dialect of DIALECTS) {
  describe(`project export and import (${dialect})`, () => {
    let t: TestApp;
    let dev: { id: number; username: string; token: string };
    let maint: { id: number; username: string; token: string };
    let source: any;
    /** The archive of the first export (downloads are limited to one a minute per user). */
    let archive: Buffer;
    let upload: { url: string };
    /** Imports are limited to six a minute per user: each test imports as a user of its own. */
    const importer = () => t.createUser();

    before(async () => {
      t = await buildTestApp(dialect);
      dev = await t.createUser();
      maint = await t.createUser();
      source = await makeRepoProject(t, { name: 'Source', description: 'The original', visibility: 'internal', merge_method: 'ff', ci_default_git_depth: 17, issues_enabled: false });
      const main = await putFiles(t, source.id, { 'src/app.txt': 'hello\n' }, { message: 'add app' });
      await putFiles(t, source.id, { 'feature.txt': 'wip\n' }, { branch: 'feature', startBranch: 'main', message: 'feature work' });
      await setRef(t, source.id, 'refs/tags/v1.0', main);
      assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/protected_branches`, { body: { name: 'feature', push_access_level: 30, merge_access_level: 40, allow_force_push: true } })).status, 201);
      assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/members`, { body: { user_id: dev.id, access_level: 30 } })).status, 201);
      assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/members`, { body: { user_id: maint.id, access_level: 40 } })).status, 201);
      assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/badges`, { body: { name: 'cov', link_url: 'https://example.com/%{project_path}', image_url: 'https://example.com/b.svg' } })).status, 201);
      assert.equal((await t.request('PUT', `/api/v4/projects/${source.id}/custom_attributes/tier`, { body: { value: 'gold' } })).status, 200);
      const m = multipart([], [{ name: 'avatar', filename: 'logo.png', content: PNG, type: 'image/png' }]);
      assert.equal((await t.request('PUT', `/api/v4/projects/${source.id}`, { payload: m.payload, headers: m.headers })).status, 200);
      const f = multipart([], [{ name: 'file', filename: 'notes.txt', content: 'attached', type: 'text/plain' }]);
      upload = (await t.request('POST', `/api/v4/projects/${source.id}/uploads`, { payload: f.payload, headers: f.headers })).body;
      await insertFinishedPipelinesBulk(t.c.db, { projectId: source.id, userId: dev.id, sha: main, pipelines: 4, jobsPerPipeline: 3, options: JSON.stringify(plannedJob('x')) });
    });
    after(async () => t.close());

    it('export: none → queued → finished, with _links only when finished; the download is the reference layout', async () => {
      let s = await t.get(`/api/v4/projects/${source.id}/export`);
      assert.equal(s.status, 200);
      assert.deepEqual(keysOf(s.body), STATUS_KEYS);
      assert.equal(s.body.export_status, 'none');
      assert.equal(s.body.path_with_namespace, source.path_with_namespace);

      const missingDownload = await t.get(`/api/v4/projects/${source.id}/export/download`, maint.token);
      assert.equal(missingDownload.status, 404);
      assert.deepEqual(missingDownload.body, { message: '404 Not found or has expired' });

      const r = await t.request('POST', `/api/v4/projects/${source.id}/export`, { body: { description: 'Exported copy' } });
      assert.equal(r.status, 202);
      assert.deepEqual(r.body, { message: '202 Accepted' });
      assert.equal((await t.get(`/api/v4/projects/${source.id}/export`)).body.export_status, 'queued');

      await runImportExportJobs(t);
      s = await t.get(`/api/v4/projects/${source.id}/export`);
      assert.equal(s.body.export_status, 'finished');
      assert.deepEqual(keysOf(s.body), [...STATUS_KEYS, '_links'].sort());
      assert.deepEqual(s.body._links, {
        api_url: `${EXTERNAL_URL}/api/v4/projects/${source.id}/export/download`,
        web_url: `${EXTERNAL_URL}/${source.path_with_namespace}/download_export`,
      });

      const res = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${source.id}/export/download`, headers: { 'private-token': t.rootToken } });
      assert.equal(res.statusCode, 200);
      archive = res.rawPayload;
      assert.equal(res.headers['content-length'], String(archive.length));
      assert.equal(res.headers['content-type'], 'application/gzip');
      const name = `${source.path_with_namespace.replaceAll('/', '_')}`;
      assert.match(String(res.headers['content-disposition']), new RegExp(`^attachment; filename="\\d{4}-\\d{2}-\\d{2}_\\d{2}-\\d{2}-\\d{3}_${name}_export\\.tar\\.gz"`));
      const tar = zlib.gunzipSync(res.rawPayload).toString('latin1');
      for (const entry of ['./VERSION', './GITLAB_VERSION', './GITLAB_REVISION', './tree/project.json', './tree/project/project_members.ndjson',
        './tree/project/protected_branches.ndjson', './tree/project/custom_attributes.ndjson', './tree/project/ci_pipelines.ndjson',
        './tree/project/ci_cd_settings.ndjson', './tree/project/project_feature.ndjson', './project.bundle']) {
        assert.ok(tar.includes(entry), `the archive has ${entry}`);
      }
    });

    it('a finished export made again is regeneration_in_progress until the new one finishes', async () => {
      assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/export`, { body: {} })).status, 202);
      assert.equal((await t.get(`/api/v4/projects/${source.id}/export`)).body.export_status, 'regeneration_in_progress');
      await runImportExportJobs(t);
      assert.equal((await t.get(`/api/v4/projects/${source.id}/export`)).body.export_status, 'finished');
    });

    it('round trip: the import at a new path has the same refs, attributes, members, protections, attributes and pipelines', async () => {
      const r = await postImport(t, archive, [['path', 'copy'], ['name', 'Copy']]);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), IMPORT_KEYS);
      assert.equal(r.body.import_status, 'scheduled');
      assert.equal(r.body.import_type, 'gitlab_project');
      assert.match(r.body.correlation_id, /^[0-9a-f]{32}$/);
      assert.equal(r.body.path, 'copy');
      await runImportExportJobs(t);
      const st = await t.get(`/api/v4/projects/${r.body.id}/import`);
      assert.equal(st.status, 200);
      assert.deepEqual({ ...st.body, created_at: null, id: null }, {
        ...r.body, created_at: null, id: null, import_status: 'finished', description: 'Exported copy',
      });

      const before = await snapshot(t, source.id);
      const after = await snapshot(t, r.body.id);
      assert.equal(after.attributes.description, 'Exported copy');
      assert.deepEqual({ ...after.attributes, description: null }, { ...before.attributes, description: null });
      assert.deepEqual(after.refs, before.refs);
      assert.deepEqual(after.protectedBranches, before.protectedBranches);
      assert.deepEqual(after.members, before.members);
      assert.deepEqual(after.customAttributes, before.customAttributes);
      assert.equal(after.pipelines.length, 4);
      assert.deepEqual(after.pipelines, before.pipelines);
      assert.equal(after.jobs.length, 12);
      assert.deepEqual(after.jobs, before.jobs);
      assert.equal(after.attributes.avatar, 'logo.png');
      const avatar = await t.app.inject({ method: 'GET', url: `/uploads/-/system/project/avatar/${r.body.id}/logo.png`, headers: { 'private-token': t.rootToken } });
      assert.ok(avatar.rawPayload.equals(PNG), 'the avatar came along');
      const attached = await t.app.inject({ method: 'GET', url: `/${st.body.path_with_namespace}${upload.url}`, headers: { 'private-token': t.rootToken } });
      assert.equal(attached.body, 'attached', 'uploads keep their secret and name');
      assert.deepEqual(fs.readdirSync(path.join(t.c.config.dataDir, 'tmp')), [], 'the work folders are gone');
    });

    it('overwrite replaces the project at that path; override_params win over the archive', async () => {
      const first = await postImport(t, archive, [['path', 'target']]);
      await runImportExportJobs(t);
      const again = await postImport(t, archive, [['path', 'target'], ['overwrite', 'true'], ['override_params[description]', 'Overridden'], ['override_params[visibility]', 'private'],
        ['override_params[issues_enabled]', 'true'], ['override_params[ci_default_git_depth]', '3'], ['override_params[merge_method]', 'rebase_merge'],
        ['override_params[unknown_key]', 'ignored'], ['override_params[default_branch]', '']]);
      assert.equal(again.status, 201, again.text);
      await runImportExportJobs(t);
      const p = await t.get(`/api/v4/projects/${encodeURIComponent(`root/target`)}`);
      assert.equal(p.status, 200);
      assert.equal(p.body.id, again.body.id);
      assert.equal(p.body.description, 'Overridden');
      assert.equal(p.body.visibility, 'private');
      assert.deepEqual([p.body.issues_enabled, p.body.ci_default_git_depth, p.body.merge_method, p.body.default_branch], [true, 3, 'rebase_merge', 'main']);
      assert.equal((await t.get(`/api/v4/projects/${first.body.id}`)).status, 404);

      const taken = await postImport(t, archive, [['path', 'target']]);
      assert.equal(taken.status, 400);
      assert.deepEqual(taken.body, { message: 'Name has already been taken' });
    });

    it("imports the reference's fixture: attributes, features, members, protected branches, badges, custom attributes and pipelines with their jobs; the rest skipped", async () => {
      const mapped = await t.createUser({ username: 'bernard_willms' });
      const byEmail = await t.createUser({ email: 'saul_will@gitlabexample.com' });
      // as an administrator: the reference maps members only then
      const r = await postImport(t, fixtureArchive(), [['path', 'reference']]);
      assert.equal(r.status, 201, r.text);
      await runImportExportJobs(t);
      const st = (await t.get(`/api/v4/projects/${r.body.id}/import`)).body;
      assert.equal(st.import_status, 'finished', st.import_error);
      assert.equal(st.import_error, null);
      assert.deepEqual(st.failed_relations, []);
      const p = (await t.get(`/api/v4/projects/${r.body.id}`)).body;
      assert.equal(p.description, 'Nisi et repellendus ut enim quo accusamus vel magnam.');
      assert.equal(p.visibility, 'internal');
      assert.equal(p.default_branch, 'master');
      assert.match(await refsOf(t, r.body.id), /refs\/heads\/feature f2b4e1caaf015498e879ea77768664bf252207c0\nrefs\/heads\/master ed82514d2a6a5ecdbf52f7fb779c795866de3ad2\nrefs\/tags\/v1\.0\.0 /);
      const members = (await t.get(`/api/v4/projects/${r.body.id}/members`)).body.map((m: any) => [m.username, m.access_level]).sort();
      assert.deepEqual(members, [[mapped.username, 40], [byEmail.username, 10], ['root', 50]].sort());
      const pb = (await t.get(`/api/v4/projects/${r.body.id}/protected_branches`)).body;
      assert.deepEqual(pb.map((b: any) => [b.name, b.push_access_levels[0].access_level, b.merge_access_levels[0].access_level]), [['master', 40, 40]]);
      assert.deepEqual((await t.get(`/api/v4/projects/${r.body.id}/custom_attributes`)).body, [{ key: 'foo', value: 'foo' }, { key: 'bar', value: 'bar' }]);
      // project_feature: 10 is the reference's "private" level of each feature: members only
      const features = await t.c.db.selectFrom('projects').select(['issues_access_level', 'merge_requests_access_level', 'builds_access_level', 'wiki_access_level', 'snippets_access_level'])
        .where('id', '=', r.body.id).executeTakeFirstOrThrow();
      assert.deepEqual(Object.values(features), ['private', 'private', 'private', 'private', 'private']);
      const outsider = await t.createUser();
      assert.equal((await t.get(`/api/v4/projects/${r.body.id}`, outsider.token)).status, 200, 'an internal project');
      assert.equal((await t.get(`/api/v4/projects/${r.body.id}/pipelines`, outsider.token)).status, 403, 'its pipelines are for members');
      const badges = (await t.get(`/api/v4/projects/${r.body.id}/badges`)).body;
      assert.deepEqual(badges.map((b: any) => [b.name, b.link_url, b.image_url, b.kind]), [
        [null, 'http://www.example.com', 'http://www.example.com', 'project'], [null, 'http://www.example.com', 'http://www.example.com', 'project'],
      ]);
      assert.ok(badges.every((b: any) => b.id > 0 && b.rendered_link_url === 'http://www.example.com'));
      const pipelines = (await t.get(`/api/v4/projects/${r.body.id}/pipelines?per_page=100&sort=asc`)).body;
      assert.deepEqual(pipelines.map((pl: any) => [pl.sha, pl.ref, pl.status, pl.source]), [
        ['2ea1f3dec713d940208fb5ce4a38765ecb5d3f73', 'master', 'failed', 'unknown'],
        ['ce84140e8b878ce6e7c4d298c7202ff38170e3ac', 'master', 'failed', 'external_pull_request_event'],
        ['048721d90c449b244b7b4c53a9186b04330174ec', 'master', 'failed', 'merge_request_event'],
        ['sha-notes', '', 'failed', 'push'],
        ['5f923865dde3436854e9ceb9cdb7815618d4e849', 'master', 'failed', 'unknown'],
        ['d2d430676773caa88cdaf7c55944073b2fd5561a', 'master', 'failed', 'unknown'],
        ['2ea1f3dec713d940208fb5ce4a38765ecb5d3f73', 'master', 'failed', 'unknown'],
      ]);
      const jobsOf = async (pl: any) => (await t.get(`/api/v4/projects/${r.body.id}/pipelines/${pl.id}/jobs?per_page=100&include_retried=true`)).body
        .map((j: any) => [j.name, j.stage, j.status]).sort();
      assert.deepEqual(await Promise.all(pipelines.map(jobsOf)), [
        [['test build 1', 'test', 'failed'], ['test build 2', 'test', 'success']],
        [],
        [['test build 1', 'test', 'canceled'], ['test build 2', 'test', 'success']],
        [['test build 1', 'test', 'failed'], ['test build 2', 'deploy', 'success']],
        [['test build 1', 'test', 'failed'], ['test build 2', 'test', 'success']],
        [['test build 1', 'test', 'failed'], ['test build 2', 'test', 'success']],
        [],
      ]);
      const authors = await t.c.db.selectFrom('ci_pipelines').select('user_id').distinct().where('project_id', '=', r.body.id).execute();
      assert.deepEqual(authors.map((a) => a.user_id), [1], 'authors the archive names but this instance lacks are the importer (root)');

      // a user who is not an administrator: no members mapped, everything is the importer's
      const who = await importer();
      const mine = await postImport(t, fixtureArchive(), [['path', 'reference-mine']], who.token);
      await runImportExportJobs(t);
      assert.equal((await t.get(`/api/v4/projects/${mine.body.id}/import`)).body.import_status, 'finished');
      assert.deepEqual((await t.get(`/api/v4/projects/${mine.body.id}/members`)).body.map((m: any) => m.username), [who.username]);

      const jobCount = (await t.c.db.selectFrom('ci_jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', r.body.id).executeTakeFirstOrThrow()).n;
      assert.equal(Number(jobCount), 10);
    });

    describe('hostile and broken archives fail with a clear import_error and leave nothing behind', () => {
      const cases: [string, Buffer, string][] = [
        ['a symlink', rawTarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree', type: '2', linkname: '/etc' }]),
          'Archive entry "tree" is a symbolic link; only regular files and directories are allowed'],
        ['a hard link', rawTarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'x', type: '1', linkname: '/etc/passwd' }]),
          'Archive entry "x" is a hard link; only regular files and directories are allowed'],
        ['a path that climbs out', rawTarGz([{ name: 'VERSION', body: '0.2.4' }, { name: '../../escape', body: 'x' }]), 'Archive entry "../../escape" has a ".." path segment'],
        ['an absolute path', rawTarGz([{ name: '/tmp/anvil-abs', body: 'x' }]), 'Archive entry "/tmp/anvil-abs" has an absolute path'],
        ['a NUL in a name', rawTarGz([paxPath('a\0b'), { name: 'x', body: 'x' }]), 'Archive entry "a\\u0000b" has a NUL or line break in its name'],
        ['a FIFO', rawTarGz([{ name: 'fifo', type: '6' }]), 'Archive entry "fifo" is a FIFO; only regular files and directories are allowed'],
        ['a device', rawTarGz([{ name: 'dev', type: '3' }]), 'Archive entry "dev" is a character device; only regular files and directories are allowed'],
        ['a compression bomb', zlib.gzipSync(rawTar([{ name: 'VERSION', body: '0.2.4' }, { name: 'bomb', body: Buffer.alloc(40 * 1024 * 1024) }])),
          'The archive expands more than 200 times its compressed size'],
        ['not an archive', Buffer.from('plain text'), 'The file is not a valid tar.gz archive'],
        ['another VERSION', rawTarGz([{ name: 'VERSION', body: '0.1.8' }, { name: 'tree/project.json', body: '{}' }]), 'Import version mismatch: Required 0.2.4 but was 0.1.8'],
        ['a VERSION that is no version', rawTarGz([{ name: 'VERSION', body: 'garbage' }]), 'Incorrect VERSION format'],
        ['a relation line that is not JSON', rawTarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/project.json', body: '{}' },
          { name: 'tree/project/custom_attributes.ndjson', body: '{"key":"a","value":"b"}\n{broken\n' }]), 'Incorrect JSON format'],
      ];
      cases.push(['a bundle that is not a bundle', rawTarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/project.json', body: '{}' }, { name: 'project.bundle', body: '# v2 git bundle\nnonsense\n' }]),
        'The repository bundle could not be read (not a git bundle, or objects that fail the checks)']);
      for (const [what, archive, message] of cases) {
        it(what, async () => {
          const r = await postImport(t, archive, [['path', `hostile-${Math.random().toString(36).slice(2, 8)}`]], (await importer()).token);
          assert.equal(r.status, 201, r.text);
          await runImportExportJobs(t);
          const st = (await t.get(`/api/v4/projects/${r.body.id}/import`)).body;
          assert.equal(st.import_status, 'failed');
          assert.equal(st.import_error, message);
          assert.equal(await refsOf(t, r.body.id), '', 'no repository content');
          assert.deepEqual((await t.get(`/api/v4/projects/${r.body.id}/custom_attributes`)).body, []);
          assert.deepEqual(fs.readdirSync(path.join(t.c.config.dataDir, 'tmp')), [], 'no work folder left');
          const blobs = [];
          for await (const b of t.c.storage.list(`imports/${r.body.id}/`)) blobs.push(b);
          assert.deepEqual(blobs, [], 'the uploaded archive is removed');
          assert.equal(fs.existsSync('/tmp/anvil-abs'), false);
        });
      }
    });

    it('a record that cannot be saved is one failed relation with its 0-based line; unknown relations are skipped', async () => {
      const archive = rawTarGz([
        { name: './VERSION', body: '0.2.4' }, { name: './tree/project.json', body: '{"description":"partly"}' },
        { name: './tree/project/custom_attributes.ndjson', body: '{"key":"ok","value":"1"}\n{"key":"","value":"x"}\n{"key":"ok","value":"dup"}\n' },
        { name: './tree/project/triggers.ndjson', body: '{"token":"abc"}\n' },
      ]);
      const r = await postImport(t, archive, [['path', 'partial']], (await importer()).token);
      await runImportExportJobs(t);
      const st = (await t.get(`/api/v4/projects/${r.body.id}/import`)).body;
      assert.equal(st.import_status, 'finished');
      assert.equal(st.failed_relations.length, 2);
      assert.deepEqual(st.failed_relations.map((f: any) => [f.relation_name, f.line_number, f.exception_class, f.exception_message, f.source]), [
        ['custom_attributes', 2, 'ActiveRecord::RecordInvalid', null, 'process_relation_item!'],
        ['custom_attributes', 1, 'ActiveRecord::RecordInvalid', null, 'process_relation_item!'],
      ]);
      assert.deepEqual(keysOf(st.failed_relations[0]), ['created_at', 'exception_class', 'exception_message', 'id', 'line_number', 'relation_name', 'source']);
      assert.deepEqual((await t.get(`/api/v4/projects/${r.body.id}/custom_attributes`)).body, [{ key: 'ok', value: '1' }]);
    });

    it('the expiry job removes archives older than 24 hours: their download is the 404 and the blob is gone; a newer one stays', async () => {
      const [old, fresh] = [await makeRepoProject(t, { name: 'Expiring' }), await makeRepoProject(t, { name: 'Fresh' })];
      for (const p of [old, fresh]) assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/export`, {})).status, 202);
      await runImportExportJobs(t);
      const oldKey = (await findExport(t.c.db, old.id))!.archive_key!;
      const freshKey = (await findExport(t.c.db, fresh.id))!.archive_key!;
      // finished 25 hours ago (the job compares with the row's time)
      await t.c.db.updateTable('project_exports').set({ finished_at: new Date(Date.now() - 25 * 3600_000).toISOString() }).where('project_id', '=', old.id).execute();
      assert.ok(await t.c.storage.stat(oldKey), 'the old archive is there before the job runs');

      const queue = testQueue(t.c.db);
      registerBackgroundJobs({ ...t.c, queue }, [EXPORTS_EXPIRE_JOB]);
      await scheduleRecurring({ ...t.c, queue }, EXPORTS_EXPIRE_JOB, new Date());
      queue.start();
      try {
        await waitFor('the expiry job to run', async () => (await t.c.db.selectFrom('background_jobs').select('id').where('kind', '=', EXPORTS_EXPIRE_JOB).where('state', '=', 'done').execute()).length > 0);
      } finally {
        await queue.stop();
      }
      assert.equal(await t.c.storage.stat(oldKey), null, 'the expired blob is removed');
      const maintainer = await t.createUser(); // downloads are limited to one a minute per user
      await addMember(t, 'Project', old.id, maintainer.id, 40);
      const gone = await t.get(`/api/v4/projects/${old.id}/export/download`, maintainer.token);
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Not found or has expired' }]);
      assert.equal((await t.get(`/api/v4/projects/${old.id}/export`)).body.export_status, 'none');
      assert.ok(await t.c.storage.stat(freshKey), 'the newer archive stays');
      assert.equal((await t.get(`/api/v4/projects/${fresh.id}/export`)).body.export_status, 'finished');
      const another = await t.createUser();
      await addMember(t, 'Project', fresh.id, another.id, 40);
      const kept = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${fresh.id}/export/download`, headers: { 'private-token': another.token } });
      assert.equal(kept.statusCode, 200);
      const next = await t.c.db.selectFrom('background_jobs').select('run_at').where('kind', '=', EXPORTS_EXPIRE_JOB).where('state', '=', 'queued').execute();
      assert.equal(next.length, 1, 'the job scheduled its next run');
      assert.ok(Date.parse(next[0]!.run_at) > Date.now() + 50 * 60_000, 'about an hour later');
    });

    it('upload[url] sends the finished archive there, PUT by default or POST, as application/gzip with its exact bytes', async () => {
      const got: { method: string; type: string; length: string; body: Buffer }[] = [];
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (d: Buffer) => chunks.push(d));
        req.on('end', () => {
          got.push({ method: req.method!, type: String(req.headers['content-type']), length: String(req.headers['content-length']), body: Buffer.concat(chunks) });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/upload`;
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
      try {
        for (const method of [undefined, 'POST']) {
          const who = await t.createUser();
          assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/members`, { body: { user_id: who.id, access_level: 40 } })).status, 201);
          const upload = method ? { url, http_method: method } : { url };
          assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/export`, { token: who.token, body: { upload } })).status, 202);
          await runImportExportJobs(t);
          const res = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${source.id}/export/download`, headers: { 'private-token': who.token } });
          assert.equal(res.statusCode, 200);
          const last = got.at(-1)!;
          assert.deepEqual([last.method, last.type, last.length], [method ?? 'PUT', 'application/gzip', String(res.rawPayload.length)]);
          assert.ok(last.body.equals(res.rawPayload), 'the uploaded bytes are the archive');
          assert.equal((await t.request('DELETE', `/api/v4/projects/${source.id}/members/${who.id}`)).status, 204);
        }
        assert.equal(got.length, 2);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
        server.close();
      }
    });

    it('remote-import checks the headers in the request (HEAD: address, length, type) and downloads in the job, through the outbound rules', async () => {
      const GiB = 1024 ** 3;
      const served: Record<string, { type: string; body: Buffer; length?: number | null; getStatus?: number }> = {
        '/ok.tar.gz': { type: 'application/gzip', body: archive },
        '/html': { type: 'text/html', body: Buffer.from('<html>') },
        '/nolength': { type: 'application/gzip', body: archive, length: null },
        '/huge': { type: 'application/gzip', body: Buffer.alloc(0), length: 11 * GiB },
        '/broken': { type: 'application/gzip', body: archive, getStatus: 500 },
        '/liar': { type: 'application/x-gzip', body: Buffer.alloc(2 * 1024 * 1024), length: 100 },
      };
      const seen: string[] = [];
      const server = http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        const f = served[req.url ?? ''];
        if (!f) return void res.writeHead(404).end();
        const length = f.length === undefined ? f.body.length : f.length;
        if (req.method === 'HEAD') return void res.writeHead(200, { 'content-type': f.type, ...(length === null ? {} : { 'content-length': String(length) }) }).end();
        if (f.getStatus) return void res.writeHead(f.getStatus).end();
        // a GET streams the body whatever the HEAD said (chunked)
        res.writeHead(200, { 'content-type': f.type });
        res.end(f.body);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const post = async (who: { token: string }, file: string, path: string) =>
        t.request('POST', '/api/v4/projects/remote-import', { token: who.token, body: { url: `${base}${file}`, path } });
      try {
        const who = await importer();
        const blocked = await post(who, '/ok.tar.gz', 'remote-blocked');
        assert.deepEqual([blocked.status, blocked.body], [400, { message: 'File url is blocked: Requests to localhost are not allowed' }]);
        assert.equal(seen.length, 0, 'a refused address is never contacted');
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
        const refusals: [string, string][] = [
          ['/html', "Content type 'text/html' not allowed. (Allowed: application/gzip, application/x-tar, application/x-gzip)"],
          ['/nolength', 'Content length is too small (should be at least 1 Byte)'],
          ['/huge', 'Content length is too big (should be at most 10 GB)'],
        ];
        for (const [file, message] of refusals) {
          const r = await post(await importer(), file, `remote-${file.slice(1)}`);
          assert.deepEqual([r.status, r.body], [400, { message }], file);
        }
        assert.equal((await t.get(`/api/v4/projects/${encodeURIComponent(`${who.username}/remote-html`)}`)).status, 404, 'no project for a refused request');
        assert.deepEqual(seen, ['HEAD /html', 'HEAD /nolength', 'HEAD /huge'], 'the request only asks for the headers');

        const r = await post(await importer(), '/ok.tar.gz', 'remote-ok');
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.import_status, 'scheduled');
        assert.equal(seen.at(-1), 'HEAD /ok.tar.gz', 'nothing downloaded in the request');
        const broken = await post(await importer(), '/broken', 'remote-broken');
        assert.equal(broken.status, 201, broken.text);
        await t.request('PUT', '/api/v4/application/settings', { body: { max_import_size: 1 } });
        const liar = await post(await importer(), '/liar', 'remote-liar');
        assert.equal(liar.status, 201, liar.text);
        await runImportExportJobs(t);
        await t.request('PUT', '/api/v4/application/settings', { body: { max_import_size: 0 } });
        assert.ok(seen.includes('GET /ok.tar.gz'), 'the job downloaded it');
        const st = (await t.get(`/api/v4/projects/${r.body.id}/import`)).body;
        assert.equal(st.import_status, 'finished', st.import_error);
        assert.deepEqual(await refsOf(t, r.body.id), await refsOf(t, source.id));
        for (const [id, message] of [[broken.body.id, 'Failed to download the import file: the server answered 500'], [liar.body.id, 'The import file is larger than 1048576 bytes']]) {
          const failed = (await t.get(`/api/v4/projects/${id}/import`)).body;
          assert.deepEqual([failed.import_status, failed.import_error], ['failed', message]);
          assert.equal(await refsOf(t, id), '', 'nothing imported');
        }
        const blobs = [];
        for (const id of [r.body.id, broken.body.id, liar.body.id]) for await (const b of t.c.storage.list(`imports/${id}/`)) blobs.push(b.key);
        assert.deepEqual(blobs, [], 'no downloaded archive is left');
        const stored = await t.c.db.selectFrom('project_imports').select('source_url_encrypted').where('project_id', 'in', [r.body.id, broken.body.id, liar.body.id]).execute();
        assert.deepEqual(stored.map((x) => x.source_url_encrypted), [null, null, null], 'the URL is forgotten once done');
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
        server.close();
      }
    });

    describe('rules', () => {
      it('export needs a maintainer (403 for a developer), 404 for a stranger, 401 without a token', async () => {
        const stranger = await t.createUser();
        const priv = await makeRepoProject(t, { name: 'Private one', visibility: 'private' });
        await addMember(t, 'Project', priv.id, dev.id, 30);
        for (const [method, url] of [['POST', `/api/v4/projects/${priv.id}/export`], ['GET', `/api/v4/projects/${priv.id}/export`], ['GET', `/api/v4/projects/${priv.id}/export/download`]]) {
          assert.deepEqual((await t.request(method, url, { token: dev.token })).body, { message: '403 Forbidden' }, `${method} ${url} developer`);
          const s = await t.request(method, url, { token: stranger.token });
          assert.deepEqual([s.status, s.body], [404, { message: '404 Project Not Found' }]);
          assert.equal((await t.request(method, url, { token: null })).status, 401);
        }
        // the import status is for whoever may read the project, as in the reference
        assert.equal((await t.get(`/api/v4/projects/${priv.id}/import`, dev.token)).body.import_status, 'none');
        assert.equal((await t.get(`/api/v4/projects/${priv.id}/import`, stranger.token)).status, 404);
      });

      it("a maintainer's export carries no members (the reference exports them for owners only)", async () => {
        const p = await makeRepoProject(t, { name: 'Team' });
        const m = await t.createUser();
        await addMember(t, 'Project', p.id, m.id, 40);
        await addMember(t, 'Project', p.id, dev.id, 30);
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/export`, { token: m.token })).status, 202);
        await runImportExportJobs(t);
        const res = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${p.id}/export/download`, headers: { 'private-token': m.token } });
        assert.equal(res.statusCode, 200);
        const tar = zlib.gunzipSync(res.rawPayload).toString('latin1');
        assert.ok(tar.includes('./tree/project/project_members.ndjson'));
        assert.ok(!tar.includes(dev.username), 'no member is named in the archive');
      });

      it('project_export_enabled off: the export endpoints are 404', async () => {
        await t.request('PUT', '/api/v4/application/settings', { body: { project_export_enabled: false } });
        const r = await t.get(`/api/v4/projects/${source.id}/export`);
        assert.deepEqual([r.status, r.body], [404, { message: '404 Not Found' }]);
        await t.request('PUT', '/api/v4/application/settings', { body: { project_export_enabled: true } });
      });

      it('import_sources without gitlab_project: 403; max_import_size: 413; file and path are required', async () => {
        await t.request('PUT', '/api/v4/application/settings', { body: { import_sources: ['github'] } });
        const who = await importer();
        assert.deepEqual((await postImport(t, Buffer.from('x'), [['path', 'nope']], who.token)).body, { message: '403 Forbidden' });
        assert.deepEqual((await t.get(`/api/v4/projects/${source.id}/import`)).body, { message: '403 Forbidden' });
        await t.request('PUT', '/api/v4/application/settings', { body: { import_sources: ['gitlab_project'], max_import_size: 1 } });
        const big = await postImport(t, Buffer.alloc(1024 * 1024 + 1), [['path', 'big']], who.token);
        assert.deepEqual([big.status, big.body], [413, { message: '413 Request Entity Too Large' }]);
        await t.request('PUT', '/api/v4/application/settings', { body: { max_import_size: 0 } });
        const m = await t.request('POST', '/api/v4/projects/import', { token: who.token, body: { path: 'x' } });
        assert.deepEqual([m.status, m.body], [400, { message: '400 (Bad request) "file" not given' }]);
      });

      it("the reference's per-user limits: one download a minute, six exports a minute", async () => {
        const own = await makeRepoProject(t, { name: 'Limited' });
        assert.equal((await t.request('POST', `/api/v4/projects/${own.id}/export`, { token: t.rootToken })).status, 202);
        await runImportExportJobs(t);
        const limited = await t.createUser();
        await addMember(t, 'Project', own.id, limited.id, 40);
        assert.equal((await t.get(`/api/v4/projects/${own.id}/export/download`, limited.token)).status, 200);
        const second = await t.get(`/api/v4/projects/${own.id}/export/download`, limited.token);
        assert.deepEqual([second.status, second.body], [429, { message: { error: 'This endpoint has been requested too many times. Try again later.' } }]);
        for (let i = 0; i < 6; i++) assert.equal((await t.request('POST', `/api/v4/projects/${own.id}/export`, { token: limited.token })).status, 202);
        assert.equal((await t.request('POST', `/api/v4/projects/${own.id}/export`, { token: limited.token })).status, 429);
        await runImportExportJobs(t);
      });
    });
  });
}
