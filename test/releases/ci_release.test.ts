// The CI `release:` keyword: a job that succeeds makes its release from its own values with the
// job's variables expanded (the tag from the pipeline's commit), as the job's user; a release that
// cannot be made fails the job; an invalid `release:` is a configuration error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/build.js';
import { addMember } from '../helpers/projects.js';
import { createPipeline, jobRows, makeCiProject } from '../helpers/ci.js';
import { finishJob, startJob } from '../../src/domain/ci/state.js';

const CI = `variables:
  VERSION: "1.2"
release-job:
  script: echo releasing
  release:
    tag_name: v$VERSION
    name: Release \${VERSION} of $CI_PROJECT_NAME
    description: Built by $CI_JOB_NAME
    assets:
      links:
        - name: pkg-$VERSION
          url: https://example.com/pkg/$VERSION
          link_type: package
          filepath: /pkg
again:
  script: echo again
  release:
    tag_name: v$VERSION
    description: twice
`;

for (const dialect of DIALECTS) {
  describe(`CI release: keyword (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_RUNNER_ENABLED: 'false' });
    });
    after(async () => t.close());

    it('makes the release when its job succeeds, variables expanded, and fails a job whose release cannot be made', async () => {
      const dev = await t.createUser();
      const { id, sha, project } = await makeCiProject(t, CI);
      await addMember(t, 'Project', id, dev.id, 40);
      const p = await createPipeline(t, id, 'main', { token: dev.token });
      assert.equal(p.status, 201, p.text);
      const jobs = await jobRows(t, p.body.id);
      const first = jobs.find((j) => j.name === 'release-job')!;
      const second = jobs.find((j) => j.name === 'again')!;
      // nothing before the job succeeds
      assert.equal((await t.get(`/api/v4/projects/${id}/releases`)).body.length, 0);

      assert.ok(await startJob(t.c, first.id));
      await finishJob(t.c, first.id, { status: 'success' });
      const r = await t.get(`/api/v4/projects/${id}/releases/v1.2`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.name, `Release 1.2 of ${project.name}`);
      assert.equal(r.body.description, 'Built by release-job');
      assert.equal(r.body.commit.id, sha);
      assert.equal(r.body.author.username, dev.username);
      assert.deepEqual(
        r.body.assets.links.map((l: any) => [l.name, l.url, l.link_type, l.direct_asset_url.endsWith('/-/releases/v1.2/downloads/pkg')]),
        [['pkg-1.2', 'https://example.com/pkg/1.2', 'package', true]],
      );
      assert.equal((await t.get(`/api/v4/projects/${id}/repository/tags/v1.2`)).body.commit.id, sha);
      assert.equal((await t.get(`/api/v4/projects/${id}/jobs/${first.id}`)).body.status, 'success');

      // the same tag again: the release exists, so the job fails
      assert.ok(await startJob(t.c, second.id));
      await finishJob(t.c, second.id, { status: 'success' });
      const failed = (await t.get(`/api/v4/projects/${id}/jobs/${second.id}`)).body;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failure_reason, 'script_failure');
      assert.equal((await t.get(`/api/v4/projects/${id}/releases`)).body.length, 1);
    });

    it('refuses an invalid release: as a configuration error', async () => {
      const { id } = await makeCiProject(t, 'job:\n  script: echo\n  release:\n    tag_name: v1\n    colour: red\n');
      const r = await createPipeline(t, id, 'main');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body.message.base, ['jobs:job:release config contains unknown keys: colour']);
    });
  });
}
