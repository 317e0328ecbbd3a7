// The job a registered runner receives, on each dialect, from a real CI file through the parser
// and planner: `image` (short and long form), `services` (aliases, commands, variables), `cache`
// (keys with the protected/non_protected suffix, `key:files`, fallback keys, the reference's
// defaults), `credentials`, `features`; and every field has the type gitlab-runner's decoder
// (common/spec: Job) expects.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { buildGitTestApp, type GitTestApp } from '../helpers/git.js';
import { createPipelineOk, makeCiProject, putFiles } from '../helpers/ci.js';
import { TestRunnerClient } from '../helpers/runner_client.js';

const REG_TOKEN = 'instance-registration-token-payload';

const CI = `
default:
  image:
    name: ruby:3.3
    entrypoint: [""]
    pull_policy: [always, if-not-present]
  cache:
    paths: [vendor/]
build:
  tags: [payload]
  services:
    - postgres:16
    - name: redis:7
      alias: cache
      command: ["redis-server", "--appendonly", "yes"]
      variables:
        REDIS_X: "1"
  cache:
    - key:
        files: [Gemfile.lock]
        prefix: gems
      paths: [vendor/ruby]
      policy: pull
    - key: other-$CI_COMMIT_REF_SLUG
      paths: [tmp/]
      unprotect: true
      fallback_keys: [main-cache]
      when: always
  script: [echo build]
plain:
  tags: [payload]
  image: alpine:3.20
  services: []
  script: [echo plain]
inherited:
  tags: [payload]
  script: [echo inherited]
`;

// The JSON types gitlab-runner decodes the job into: a value of another type fails the whole job.
type Shape = 'string' | 'int' | 'number' | 'bool' | 'any' | Shape[] | { [k: string]: Shape } | { map: Shape } | { nullable: Shape };
const IMAGE = {
  name: 'string', entrypoint: { nullable: ['string'] }, ports: [{ number: 'int', protocol: 'string', name: 'string' }],
  executor_opts: { map: 'any' }, pull_policy: { nullable: ['string'] },
} as const satisfies Shape;
const SERVICE: Shape = {
  ...IMAGE, alias: { nullable: 'string' }, command: { nullable: ['string'] },
  variables: [{ key: 'string', value: 'string', public: 'bool', file: 'bool', masked: 'bool', raw: 'bool' }],
};
const JOB: Shape = {
  id: 'int', token: 'string', allow_git_fetch: 'bool',
  job_info: {
    id: 'int', name: 'string', stage: 'string', project_id: 'int', project_name: 'string', project_full_path: 'string', pipeline_id: 'int', namespace_id: 'int',
    root_namespace_id: 'int', user_id: 'int', time_in_queue_seconds: 'number', project_jobs_running_on_instance_runners_count: 'string', queue_size: 'int', queue_depth: 'int',
  },
  git_info: { repo_url: 'string', repo_object_format: 'string', ref: 'string', sha: 'string', before_sha: 'string', ref_type: 'string', refspecs: ['string'], depth: 'int', protected: 'bool' },
  runner_info: { timeout: 'int', runner_session_url: { nullable: 'string' } },
  variables: [{ key: 'string', value: 'string', public: 'bool', file: 'bool', masked: 'bool', raw: 'bool' }],
  steps: [{ name: 'string', script: ['string'], timeout: 'int', when: 'string', allow_failure: 'bool' }],
  image: { nullable: IMAGE },
  services: [SERVICE],
  artifacts: [{ name: 'string', untracked: 'bool', paths: ['string'], exclude: ['string'], when: 'string', artifact_type: 'string', artifact_format: 'string', expire_in: { nullable: 'string' } }],
  cache: [{ key: 'string', untracked: 'bool', policy: 'string', paths: ['string'], when: 'string', fallback_keys: ['string'] }],
  credentials: [{ type: 'string', url: 'string', username: 'string', password: 'string' }],
  dependencies: [{ id: 'int', token: 'string', name: 'string', artifacts_file: { filename: 'string', size: 'int' } }],
  features: { trace_sections: 'bool', failure_reasons: ['string'] },
};

/** Asserts `v` decodes as `shape` (every field of an object present, no field the runner does not know). */
function assertShape(v: unknown, shape: Shape, at = 'job'): void {
  if (typeof shape === 'string') {
    if (shape === 'any') return;
    const ok = shape === 'string' ? typeof v === 'string' : shape === 'bool' ? typeof v === 'boolean' : shape === 'int' ? Number.isInteger(v) : typeof v === 'number';
    assert.ok(ok, `${at}: ${JSON.stringify(v)} is not ${shape}`);
  } else if (Array.isArray(shape)) {
    assert.ok(Array.isArray(v), `${at}: not an array`);
    (v as unknown[]).forEach((x, i) => assertShape(x, shape[0]!, `${at}[${i}]`));
  } else if ('nullable' in shape) {
    if (v !== null) assertShape(v, shape.nullable as Shape, at);
  } else if ('map' in shape) {
    assert.ok(v !== null && typeof v === 'object' && !Array.isArray(v), `${at}: not an object`);
  } else {
    assert.ok(v !== null && typeof v === 'object' && !Array.isArray(v), `${at}: not an object`);
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) assert.ok(k in shape, `${at}.${k} is not a field of the runner's job`);
    for (const [k, s] of Object.entries(shape)) {
      if (!(k in o)) {
        // Optional members of ports (omitempty) only.
        assert.ok(at.includes('ports'), `${at}.${k} is missing`);
        continue;
      }
      assertShape(o[k], s as Shape, `${at}.${k}`);
    }
  }
}

for (const dialect of DIALECTS) {
  describe(`runner job payload (${dialect})`, () => {
    let t: GitTestApp;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN, ANVIL_RUNNER_LONG_POLL_SECONDS: '0' });
    });
    after(() => t.close());

    it('image, services, cache, credentials and features as the reference sends them, every field of the decoded type', async () => {
      const p = await makeCiProject(t, { '.service-ci.yml': CI });
      const lockSha = await putFiles(t, p.id, { 'Gemfile.lock': 'GEM\n' }, { message: 'lock' });
      await putFiles(t, p.id, { 'README.md': 'later\n' }, { message: 'after the lock' });
      const pipeline = await createPipelineOk(t, p.id);
      const runner = new TestRunnerClient(t.url);
      assert.equal((await runner.register(REG_TOKEN, { tags: ['payload'], runUntagged: false })).status, 201);
      const jobs: Record<string, any> = {};
      for (let i = 0; i < 3; i++) {
        const job = await runner.nextJob(3);
        assertShape(job, JOB);
        jobs[job.job_info.name] = job;
        assert.equal(job.job_info.pipeline_id, pipeline.id);
      }

      const build = jobs.build;
      assert.deepEqual(build.image, { name: 'ruby:3.3', entrypoint: [''], ports: [], executor_opts: {}, pull_policy: ['always', 'if-not-present'] });
      assert.deepEqual(build.services, [
        { name: 'postgres:16', alias: null, command: null, entrypoint: null, ports: [], variables: [], executor_opts: {}, pull_policy: null },
        {
          name: 'redis:7', alias: 'cache', command: ['redis-server', '--appendonly', 'yes'], entrypoint: null, ports: [],
          variables: [{ key: 'REDIS_X', value: '1', public: true, file: false, masked: false, raw: false }], executor_opts: {}, pull_policy: null,
        },
      ]);
      const lockKey = createHash('sha1').update(lockSha).digest('hex');
      assert.deepEqual(build.cache, [
        { key: `gems-${lockKey}-protected`, untracked: false, policy: 'pull', paths: ['vendor/ruby'], when: 'on_success', fallback_keys: [] },
        { key: 'other-$CI_COMMIT_REF_SLUG-non_protected', untracked: false, policy: 'pull-push', paths: ['tmp/'], when: 'always', fallback_keys: ['main-cache-non_protected'] },
      ]);
      assert.deepEqual(build.credentials, []);
      assert.equal(build.features.trace_sections, true);
      assert.ok(build.features.failure_reasons.includes('script_failure'));
      assert.equal(build.git_info.protected, true);

      const plain = jobs.plain;
      assert.deepEqual(plain.image, { name: 'alpine:3.20', entrypoint: null, ports: [], executor_opts: {}, pull_policy: null });
      assert.deepEqual(plain.services, []);
      assert.deepEqual(plain.cache, [{ key: 'default-protected', untracked: false, policy: 'pull-push', paths: ['vendor/'], when: 'on_success', fallback_keys: [] }]);

      const inherited = jobs.inherited;
      assert.deepEqual(inherited.image, build.image, 'default:image');
      assert.deepEqual(inherited.cache, plain.cache, 'default:cache');
      assert.deepEqual(keysOf(inherited.image), ['entrypoint', 'executor_opts', 'name', 'ports', 'pull_policy']);

      for (const j of Object.values(jobs)) assert.equal((await runner.updateJob(j.id, j.token, { state: 'success' })).status, 200);
      await runner.unregister();
    });
  });
}
