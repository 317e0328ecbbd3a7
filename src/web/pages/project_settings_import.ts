// Importing a project from an export archive: the upload form (multipart to POST /projects/import,
// the browser's own call) and the new project's import status page.
import { encodePath, html } from '../html.js';
import { PageNotFound, SignInRequired, type ProjectPage, type SitePage } from '../page.js';
import { when } from '../views/common.js';

/** Import states that are still moving: the page looks again by itself. */
const IMPORT_BUSY = new Set(['scheduled', 'started']);

export const importSitePages: SitePage[] = [
  {
    path: '/import/project/new',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      const ns = await ctx.api.get('/namespaces?per_page=100');
      const namespaces: any[] = ns.status === 200 ? ns.body : [];
      const wanted = ctx.query.get('namespace') ?? ctx.viewer.username;
      return {
        title: 'Import a project',
        body: html`<h1>Import a project</h1>
<p>Upload an export file made by this or another instance (Settings &rarr; General &rarr; Export project).</p>
<form class="stack panel" data-api="/projects/import" data-method="POST" enctype="multipart/form-data" data-then="redirect:/{path_with_namespace}/-/import">
  <label><span>Project name</span><input type="text" name="name" required></label>
  <label><span>Project URL namespace</span><select name="namespace">${namespaces.map(
    (n) => html`<option value="${n.full_path}"${n.full_path === wanted ? html` selected` : ''}>${n.full_path}</option>`,
  )}</select></label>
  <label><span>Project slug</span><input type="text" name="path" required></label>
  <label><span>Export file</span><input type="file" name="file" accept=".tar.gz,.tgz,application/gzip" required></label>
  <label><input type="checkbox" name="overwrite"> Overwrite a project of the same path</label>
  <button type="submit" class="primary">Import project</button>
</form>`,
      };
    },
  },
];

export const importProjectPages: ProjectPage[] = [
  {
    path: 'import',
    async handler(ctx) {
      const p = ctx.project;
      const a = await ctx.api.get(`/projects/${p.id}/import`);
      if (a.status !== 200) throw new PageNotFound();
      const s = a.body;
      const busy = IMPORT_BUSY.has(s.import_status);
      return {
        title: `Import · ${p.name_with_namespace}`,
        section: 'overview',
        body: html`<h1>Import of ${p.name}</h1>
<dl class="facts">
  <dt>Status</dt><dd><strong data-import-status>${s.import_status}</strong></dd>
  <dt>Created</dt><dd>${when(s.created_at)}</dd>
</dl>
${busy ? html`<p class="muted" data-refresh-seconds="2">The import is running; this page looks again every few seconds.</p>` : ''}
${s.import_error ? html`<p class="flash" role="alert">${s.import_error}</p>` : ''}
${
  s.failed_relations.length > 0
    ? html`<h2>Relations that failed</h2><ul>${s.failed_relations.map((f: any) => html`<li>${f.relation_name ?? f.source}: ${f.exception_class}</li>`)}</ul>`
    : ''
}
${s.import_status === 'finished' ? html`<p><a class="button primary" href="/${encodePath(p.path_with_namespace)}">Go to the project</a></p>` : ''}`,
      };
    },
  },
];
