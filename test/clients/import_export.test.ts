// python-gitlab and @gitbeaker/rest, unchanged, drive export, download, import and the import status.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { freePort } from '../helpers/git.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { putFiles } from '../helpers/ci.js';
import { addMember } from '../helpers/projects.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

for (const dialect of DIALECTS) {
  describe(`real clients: project export and import (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await buildTestApp(dialect, { ANVIL_EXTERNAL_URL: url, ANVIL_QUEUE_WORKERS: '1' });
      t.c.queue.start(); // the export and import jobs run as on a serving node
      await t.app.listen({ port, host: '127.0.0.1' });
    });
    after(async () => t.close());

    const project = async (name: string) => {
      const p = await makeRepoProject(t, { name });
      await putFiles(t, p.id, { 'a.txt': 'a\n' }, { branch: 'topic', startBranch: 'main' });
      return p;
    };

    it('python-gitlab: exports.create/get/refresh/download, projects.import_project, imports.get', { skip: pythonGitlabSkip() }, async () => {
      const p = await project(`py-source-${dialect}`);
      const { stdout } = await run(PYTHON, [path.join(here, 'python_import_export.py')], {
        env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, PROJECT_ID: String(p.id), SUFFIX: dialect },
      });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.deepEqual(seen, {
        export_statuses: ['finished'],
        links: ['api_url', 'web_url'],
        archive_starts_gzip: true,
        first_import_status: 'scheduled',
        import_status: 'finished',
        import_error: null,
        failed_relations: [],
        path: `py-import-${dialect}`,
        description: 'overridden',
        branches: ['main', 'topic'],
      });
    });

    it('@gitbeaker/rest: ProjectImportExports scheduleExport, showExportStatus, download, import, showImportStatus', async () => {
      const p = await project(`gb-source-${dialect}`);
      // downloads are limited per user and namespace: this client is a maintainer of its own
      const user = await t.createUser();
      await addMember(t, 'Project', p.id, user.id, 40);
      const { stdout } = await run(process.execPath, [path.join(here, 'gitbeaker_import_export.mjs')], {
        env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: user.token, PROJECT_ID: String(p.id), SUFFIX: dialect },
      });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.deepEqual(seen, {
        scheduled: '202 Accepted',
        export_status: 'finished',
        links: ['api_url', 'web_url'],
        archive_starts_gzip: true,
        first_import_status: 'scheduled',
        import_status: 'finished',
        import_error: null,
        path: `gb-import-${dialect}`,
        branches: ['main', 'topic'],
      });
    });
  });
}
