// The real typed clients, unchanged, against the CI a team uses every day: go-gitlab (built
// offline from Debian's source in GOPATH mode) and python-gitlab drive project, group and instance
// variables, pipeline schedules with variables (take_ownership, play), trigger tokens and
// trigger/pipeline, protected tags, tags and CI lint, as maintainers, a developer, a stranger and
// nobody — bad input and the 401/403/404 cases as each client surfaces them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { goOfflineEnv, goGitlabSkip, PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';
import { makeCiProject } from '../helpers/ci.js';
import { addMember, makeGroup } from '../helpers/projects.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const CI = 'job:\n  script: echo "from $FROM"\n';

type U = { id: number; username: string; token: string };

/** The last line a client program printed, as JSON; its stderr in the error when it failed. */
async function drive(cmd: string, args: string[], env: Record<string, string>): Promise<any> {
  try {
    const { stdout } = await run(cmd, args, { env: { ...process.env, ...env }, maxBuffer: 16 << 20, timeout: 300_000 });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  } catch (e: any) {
    throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed: ${e.message}\n${e.stderr ?? ''}`);
  }
}

/** A private project in a private group: maintainers (one also a group maintainer), a developer, a stranger. */
async function story(t: TestApp, url: string, tag: string) {
  const [maint, maint2, dev, stranger] = [await t.createUser(), await t.createUser(), await t.createUser(), await t.createUser()] as U[];
  const group = await makeGroup(t, `ci-${tag}-${Date.now()}`);
  const p = await makeCiProject(t, CI, { body: { visibility: 'private', namespace_id: group.id } });
  await addMember(t, 'Namespace', group.id, maint!.id, 40);
  await addMember(t, 'Project', p.id, maint2!.id, 40);
  await addMember(t, 'Project', p.id, dev!.id, 30);
  const env = {
    ANVIL_URL: url, PROJECT_ID: String(p.id), GROUP_ID: String(group.id), ROOT_TOKEN: t.rootToken,
    MAINT_TOKEN: maint!.token, MAINT2_TOKEN: maint2!.token, DEV_TOKEN: dev!.token, STRANGER_TOKEN: stranger!.token,
  };
  return { env, maint: maint!, maint2: maint2!, p };
}

/** Nothing a client stored as a secret is in the database in clear. */
async function secretsNotInClear(t: TestApp, secrets: string[]) {
  for (const table of ['ci_variables', 'ci_pipeline_variables', 'ci_pipeline_schedule_variables'] as const) {
    const rows = JSON.stringify(await t.c.db.selectFrom(table as any).selectAll().execute());
    for (const s of secrets) assert.ok(!rows.includes(s), `${s} is not stored in clear in ${table}`);
  }
}

const goSkip = goGitlabSkip();
describe('go-gitlab: variables, schedules, triggers, protected tags, tags, lint', { skip: goSkip }, () => {
  let bin: string;
  let tmp: string;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-go-ci-'));
    bin = path.join(tmp, 'ci');
    const env = goOfflineEnv();
    await run('go', ['build', '-o', bin, '.'], { cwd: path.join(here, 'go_ci'), env });
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const dialect of DIALECTS) {
    describe(dialect, () => {
      let t: TestApp;
      let url: string;
      before(async () => {
        ({ t, url } = await listeningTestApp(dialect));
      });
      after(async () => t.close());

      it('every part, as maintainers, a developer, a stranger and nobody', async () => {
        const { env, maint, maint2 } = await story(t, url, 'go');
        const s = await drive(bin, [], env);
        // project variables
        assert.deepEqual(s.project_variable_created, { key: 'DEPLOY_KEY', value: 's3cr3t-value-1234', variable_type: 'env_var', protected: false, masked: true, environment_scope: '*' });
        assert.deepEqual(s.project_variable_scoped, { key: 'DEPLOY_KEY', value: 'production-value-99', variable_type: 'file', protected: true, masked: false, environment_scope: 'production' });
        assert.equal(s.project_variables_count, 2);
        assert.equal(s.project_variable_updated.value, 'n3w-secret-value-5678');
        assert.equal(s.project_variable_updated.environment_scope, '*');
        assert.equal(s.project_variable_bad_key, 400);
        assert.equal(s.project_variable_unmaskable, 400);
        assert.equal(s.project_variables_developer, 403);
        assert.equal(s.project_variables_stranger, 404);
        assert.equal(s.project_variables_anonymous, 401);
        assert.equal(s.project_variable_missing, 404);
        // group and instance variables
        assert.equal(s.group_variable_created.protected, true);
        assert.equal(s.group_variable_get.value, 'group-secret-value');
        assert.deepEqual([s.group_variable_updated.value, s.group_variable_updated.protected], ['changed-group-value', false]);
        assert.equal(s.group_variables_count, 1);
        assert.equal(s.group_variables_maintainer, 403);
        assert.equal(s.group_variable_taken, 400);
        assert.equal(s.group_variable_removed, 404);
        // the group's detail and project list decode as Project values
        assert.deepEqual(s.group_detail_projects, [Number(env.PROJECT_ID)]);
        assert.equal(s.group_detail_shared_projects, 0);
        assert.deepEqual(s.group_projects, [Number(env.PROJECT_ID)]);
        assert.deepEqual(s.instance_variable_created, { key: 'INSTANCE_NAME', value: 'anvil-ci', variable_type: 'file', protected: false, masked: false });
        assert.equal(s.instance_variable_updated.value, 'anvil-ci-2');
        assert.equal(s.instance_variable_get.value, 'anvil-ci-2');
        assert.equal(s.instance_variables_count, 1);
        assert.equal(s.instance_variables_non_admin, 403);
        // triggers
        assert.deepEqual(s.trigger_created, { description: 'deploy hook', owner: maint.username, token_length: s.trigger_created.token_length });
        assert.ok(s.trigger_created.token_length > 20);
        assert.equal(s.trigger_token_for_other, s.trigger_token_prefix, 'another maintainer sees only the start of the token');
        assert.ok(s.trigger_token_for_other.length < s.trigger_created.token_length);
        assert.equal(s.triggers_count, 1);
        assert.equal(s.trigger_edited, 'renamed');
        assert.deepEqual(s.triggered_pipeline, { source: 'trigger', ref: 'main', user: maint.username });
        assert.equal(s.trigger_bad_token, 404);
        assert.equal(s.trigger_bad_ref, 400);
        assert.equal(s.triggers_developer, 403);
        // schedules
        assert.deepEqual(s.schedule_created, { description: 'nightly', cron: '30 2 * * *', cron_timezone: 'Europe/Berlin', active: true, owner: maint.username, has_next_run: true });
        assert.deepEqual(s.schedule_variable, { key: 'NIGHTLY', value: '1', variable_type: 'env_var' });
        assert.equal(s.schedule_variable_edited, '2');
        assert.deepEqual(s.schedule_edited, { cron: '0 3 * * 1', active: false });
        assert.deepEqual(s.schedule_get_variables, [{ key: 'NIGHTLY', value: '2', variable_type: 'env_var' }]);
        assert.equal(s.schedule_new_owner, maint2.username);
        assert.equal(s.schedule_play_status, 201);
        assert.equal(s.schedules_count, 1);
        assert.equal(s.schedule_bad_cron, 400);
        assert.equal(s.schedule_take_ownership_developer, 403);
        assert.equal(s.schedules_stranger, 404);
        assert.equal(s.schedules_anonymous, 401);
        assert.equal(s.schedule_deleted, 404);
        // protected tags and tags
        assert.deepEqual(s.protected_tag, { name: 'v*', create_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }] });
        assert.equal(s.protected_tag_get, 'v*');
        assert.equal(s.protected_tag_taken, 422);
        assert.equal(s.protected_tag_developer, 403);
        assert.equal(s.tag_protected_developer, 400);
        assert.deepEqual(s.tag_created, { name: 'v1.0', message: 'first release', protected: true, has_commit: true });
        assert.deepEqual(s.tag_unprotected, { name: 'dev-1', protected: false });
        assert.equal(s.tag_get, 'v1.0');
        assert.equal(s.tags_count, 2);
        assert.equal(s.tag_taken, 400);
        assert.equal(s.tag_missing, 404);
        assert.equal(s.tag_delete_protected_developer, 403);
        assert.equal(s.protected_tag_removed, 404);
        // lint
        assert.deepEqual(s.lint_valid, { valid: true, errors: [], warnings: [], merged_yaml: s.lint_valid.merged_yaml });
        assert.match(s.lint_valid.merged_yaml, /job:/);
        assert.equal(s.lint_invalid.valid, false);
        assert.deepEqual(s.lint_invalid.errors, ['job job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post']);
        // The dry run is pipeline creation: a developer may not create pipelines on the protected default branch.
        assert.deepEqual(s.lint_project_file, { valid: false, errors: ["Insufficient permissions for protected ref 'main'"] });
        assert.equal(s.lint_stranger, 404);
        assert.equal(s.lint_anonymous, 401);
        assert.equal(s.lint_no_content, 400);
        await secretsNotInClear(t, ['s3cr3t-value-1234', 'n3w-secret-value-5678', 'production-value-99', 'changed-group-value']);
      });
    });
  }
});

const pySkip = pythonGitlabSkip();
describe('python-gitlab: variables, schedules, triggers, protected tags, tags, lint', { skip: pySkip }, () => {
  for (const dialect of DIALECTS) {
    describe(dialect, () => {
      let t: TestApp;
      let url: string;
      before(async () => {
        ({ t, url } = await listeningTestApp(dialect));
      });
      after(async () => t.close());

      it('every part, as maintainers, a developer, a stranger and nobody', async () => {
        const { env, maint, maint2 } = await story(t, url, 'py');
        const s = await drive(PYTHON, [path.join(here, 'python_ci_settings.py')], env);
        // python-gitlab adds the parent's id (project_id) to the object's attributes.
        const { project_id: _pid, ...created } = s.project_variable_created;
        assert.deepEqual(created, {
          key: 'PY_SECRET', value: 'py-secret-value-42', variable_type: 'file', protected: false, masked: true, raw: false, environment_scope: '*',
          description: null,
        });
        assert.equal(s.project_variable_scoped, 'staging-value-42');
        assert.equal(s.project_variable_updated, 'py-changed-value-43');
        assert.equal(s.project_variables_count, 2);
        assert.equal(s.project_variable_bad_key, 400);
        assert.equal(s.project_variable_blank_key, 400);
        assert.equal(s.project_variables_developer, 403);
        assert.equal(s.project_variables_stranger, 404);
        assert.equal(s.project_variables_anonymous, 401);
        assert.equal(s.project_variable_deleted, 404);
        assert.equal(s.group_variable_created.protected, true);
        assert.equal(s.group_variable_updated, 'group-value-2');
        assert.equal(s.group_variables_maintainer, 403);
        assert.equal(s.instance_variable_created.value, 'instance-1');
        assert.equal(s.instance_variable_updated, 'instance-2');
        assert.equal(s.instance_variables_non_admin, 403);
        assert.equal(s.instance_variable_bad_type, 400);
        assert.deepEqual(s.trigger_created, { description: 'py hook', owner: maint.username });
        assert.ok(s.trigger_token_full.startsWith(s.trigger_token_for_other) && s.trigger_token_for_other.length < s.trigger_token_full.length);
        assert.deepEqual(s.triggered_pipeline, { source: 'trigger', ref: 'main' });
        assert.equal(s.trigger_bad_token, 404);
        assert.equal(s.triggers_developer, 403);
        assert.deepEqual(s.schedule_created, { cron: '0 4 * * *', owner: maint.username, active: true });
        assert.deepEqual(s.schedule_variables, [{ key: 'PY_NIGHTLY', value: 'yes', variable_type: 'env_var' }]);
        assert.equal(s.schedule_new_owner, maint2.username);
        assert.deepEqual(s.schedule_play, { message: '201 Created' });
        assert.deepEqual(s.schedule_pipelines, [], 'the played run is queued (queue workers are off here)');
        assert.equal(s.schedule_save_not_owner, 403);
        assert.equal(s.schedule_bad_cron, 400);
        assert.equal(s.schedules_stranger, 404);
        assert.equal(s.protected_tag, 40);
        assert.equal(s.protected_tag_developer, 403);
        assert.equal(s.tag_protected_developer, 400);
        assert.deepEqual(s.tag_created, { name: 'rel-1', protected: true });
        assert.equal(s.tag_bad_ref, 400);
        assert.equal(s.tag_delete_protected_developer, 403);
        assert.deepEqual(s.lint_valid, { valid: true, jobs: ['job'] });
        assert.equal(s.lint_invalid.valid, false);
        assert.equal(s.lint_invalid.errors.length, 1);
        assert.equal(s.lint_project_file, true);
        assert.equal(s.lint_validate_raised, true);
        assert.equal(s.lint_stranger, 404);
        assert.equal(s.lint_anonymous, 401);
        await secretsNotInClear(t, ['py-secret-value-42', 'py-changed-value-43', 'staging-value-42', 'group-value-2']);
      });
    });
  }
});
