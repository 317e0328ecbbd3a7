// A project's general settings (maintainers): name, description, visibility, default branch,
// avatar; badges; export and its download; rename, transfer, archive and delete (owners). Every
// write is the browser's call to the REST API (PUT /projects/:id, …/transfer, …/badges, …/export, …/archive, DELETE /projects/:id).
import { encodePath, html, type Html } from '../html.js';
import { MAINTAINER, OWNER } from '../project_nav.js';
import { PageNotFound, SENT, SignInRequired, type ProjectPage, type ProjectPageContext } from '../page.js';
import { settingsTabs } from '../views/settings_nav.js';
import { sitePath } from '../views/lists.js';
import { badgeFields, badgeImage } from '../views/badges.js';

const VISIBILITIES = ['private', 'internal', 'public'] as const;

/** Export states that are still moving: the page looks again by itself. */
const EXPORT_BUSY = new Set(['queued', 'started', 'regeneration_in_progress']);

/** The page is for maintainers (the API refuses these settings to others): the 404 page otherwise. */
export function requireMaintainer(ctx: ProjectPageContext): void {
  if (!ctx.viewer) throw new SignInRequired();
  if (ctx.access < MAINTAINER) throw new PageNotFound();
}

const option = (value: string, label: string, current: string | null | undefined): Html =>
  html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;

function detailsForm(p: any, branches: any[]): Html {
  return html`<section class="panel" aria-labelledby="naming-title">
  <h2 id="naming-title">Naming, description, visibility</h2>
  <form class="stack" data-api="/projects/${p.id}" data-method="PUT">
    <label><span>Project name</span><input type="text" name="name" required value="${p.name}"></label>
    <label><span>Project description (optional)</span><textarea name="description" data-send-empty>${p.description ?? ''}</textarea></label>
    <label><span>Project visibility</span><select name="visibility">${VISIBILITIES.map((v) => option(v, v[0].toUpperCase() + v.slice(1), p.visibility))}</select></label>
    ${
      branches.length > 0
        ? html`<label><span>Default branch</span><select name="default_branch">${branches.map((b) => option(b.name, b.name, p.default_branch))}</select></label>`
        : html`<p class="muted">The default branch can be chosen once the repository has a branch.</p>`
    }
    <button type="submit" class="primary">Save changes</button>
  </form>
  <h3>Project avatar</h3>
  ${p.avatar_url ? html`<p><img class="avatar avatar-large" src="${sitePath(p.avatar_url)}" alt="Current avatar of ${p.name}"></p>` : html`<p class="muted">No avatar yet.</p>`}
  <form class="stack" data-api="/projects/${p.id}" data-method="PUT" enctype="multipart/form-data" data-saved="Avatar saved.">
    <label><span>Avatar image (PNG, JPEG, GIF, ICO or WebP, up to 200 KB)</span><input type="file" name="avatar" accept="image/*" required></label>
    <button type="submit">Upload avatar</button>
  </form>
</section>`;
}

function badgesSection(p: any, badges: any[]): Html {
  const api = `/projects/${p.id}/badges`;
  return html`<section class="panel" aria-labelledby="badges-title">
  <h2 id="badges-title">Badges</h2>
  <p class="muted">Placeholders: %{project_path}, %{project_id}, %{default_branch}, %{commit_sha} and more. Group badges are changed in their group.</p>
  ${
    badges.length === 0
      ? html`<p class="muted">This project has no badges.</p>`
      : html`<table>
    <caption class="visually-hidden">Badges</caption>
    <thead><tr><th scope="col">Badge</th><th scope="col">Name</th><th scope="col">Link</th><th scope="col">Kind</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${badges.map(
      (b) => html`<tr>
      <td>${badgeImage(b)}</td>
      <td>${b.name ?? ''}</td>
      <td class="wrap mono">${b.link_url}</td>
      <td>${b.kind === 'group' ? 'Group' : 'Project'}</td>
      <td>${
        b.kind === 'group'
          ? html`<span class="muted">Read-only</span>`
          : html`<details class="row-edit" data-action-scope>
        <summary>Edit<span class="visually-hidden"> badge ${b.name ?? b.id}</span></summary>
        <form class="stack" data-api="${api}/${b.id}" data-method="PUT" aria-label="Edit badge ${b.name ?? b.id}">
          ${badgeFields(`badge-${b.id}`, b)}
          <button type="submit" class="primary">Save badge</button>
        </form>
        <button type="button" class="danger" data-api="${api}/${b.id}" data-method="DELETE" data-confirm="Delete this badge?">Delete badge</button>
      </details>`
      }</td>
    </tr>`,
    )}</tbody>
  </table>`
  }
  <h3>Add badge</h3>
  <form class="stack" data-api="${api}" data-method="POST" data-badge-preview="${api}/render" aria-label="Add badge">
    ${badgeFields('badge-new')}
    <p class="badge-preview" data-preview hidden><span>Preview: </span><a href="#"><img alt="Badge preview"></a></p>
    <button type="submit" class="primary">Add badge</button>
  </form>
</section>`;
}

function exportSection(p: any, status: string | null): Html {
  const base = `/${encodePath(p.path_with_namespace)}`;
  const busy = status !== null && EXPORT_BUSY.has(status);
  return html`<section class="panel" aria-labelledby="export-title">
  <h2 id="export-title">Export project</h2>
  <p>The export holds the repository, the project's settings, badges and more; import it here or on another instance.</p>
  ${status === null ? '' : html`<p>Export status: <strong data-export-status>${status.replace(/_/g, ' ')}</strong></p>`}
  ${busy ? html`<p class="muted" data-refresh-seconds="2">The export is being prepared; this page looks again every few seconds.</p>` : ''}
  ${status === 'finished' ? html`<p><a class="button" href="${base}/download_export">Download export</a></p>` : ''}
  <div data-action-scope>
    <button type="button" data-api="/projects/${p.id}/export" data-method="POST"${busy ? html` disabled` : ''}>${status === 'finished' ? 'Regenerate export' : 'Export project'}</button>
  </div>
  <p><a href="/import/project/new">Import a project from an export file</a></p>
</section>`;
}

function advancedSection(p: any, owner: boolean, namespaces: any[]): Html {
  if (!owner) return html``;
  // After a rename or transfer the page's address is the project's new one.
  const moved = 'redirect:{web_url}/-/settings/general';
  return html`<section class="panel danger-zone" aria-labelledby="advanced-title">
  <h2 id="advanced-title">Advanced</h2>
  <h3>Rename project</h3>
  <p>Renaming changes the project's address: clones and links must use the new path.</p>
  <form class="stack" data-api="/projects/${p.id}" data-method="PUT" data-then="${moved}" data-saved="Project renamed." aria-label="Rename project">
    <label><span>Project name</span><input type="text" name="name" required value="${p.name}"></label>
    <label><span>Path</span><input type="text" name="path" required value="${p.path}"></label>
    <button type="submit">Rename project</button>
  </form>
  <h3>Transfer project</h3>
  <p>Moves the project to another namespace where you may create projects.</p>
  <form class="stack" data-api="/projects/${p.id}/transfer" data-method="PUT" data-then="${moved}" data-saved="Project transferred." data-confirm="Transfer ${p.path_with_namespace}?" aria-label="Transfer project">
    <label><span>New namespace</span><select name="namespace" required>
      <option value="">Choose a namespace</option>
      ${namespaces.filter((n) => n.id !== p.namespace.id).map((n) => html`<option value="${n.id}">${n.full_path}</option>`)}
    </select></label>
    <button type="submit">Transfer project</button>
  </form>
  <h3>${p.archived ? 'Unarchive project' : 'Archive project'}</h3>
  <p>${p.archived ? 'Unarchiving makes the project writable again.' : 'An archived project is read-only: no pushes, pipelines or changes.'}</p>
  <div data-action-scope>
    ${
      p.archived
        ? html`<button type="button" data-api="/projects/${p.id}/unarchive" data-method="POST">Unarchive project</button>`
        : html`<button type="button" data-api="/projects/${p.id}/archive" data-method="POST" data-confirm="Archive this project?">Archive project</button>`
    }
  </div>
  <h3>Delete project</h3>
  <p>Deleting removes the project, its repository and everything attached to it.</p>
  <div data-action-scope>
    <button type="button" class="danger" data-api="/projects/${p.id}" data-method="DELETE" data-then="redirect:/dashboard/projects" data-confirm="Delete ${p.path_with_namespace} for good?">Delete project</button>
  </div>
</section>`;
}

export const projectSettingsPages: ProjectPage[] = [
  {
    path: 'settings/general',
    async handler(ctx) {
      requireMaintainer(ctx);
      const p = ctx.project;
      const owner = ctx.access >= OWNER;
      const [branches, badges, exp, namespaces] = await Promise.all([
        ctx.api.get(`/projects/${p.id}/repository/branches?per_page=100`),
        ctx.api.get(`/projects/${p.id}/badges?per_page=100`),
        ctx.api.get(`/projects/${p.id}/export`),
        owner ? ctx.api.get('/namespaces?per_page=100') : null,
      ]);
      return {
        title: `General settings · ${p.name_with_namespace}`,
        section: 'settings',
        body: html`<h1>General settings</h1>
${settingsTabs(p, 'general')}

${detailsForm(p, branches.status === 200 ? branches.body : [])}
${badgesSection(p, badges.status === 200 ? badges.body : [])}
${exportSection(p, exp.status === 200 ? exp.body.export_status : null)}
${advancedSection(p, owner, namespaces?.status === 200 ? namespaces.body : [])}`,
      };
    },
  },
  {
    // The export's web_url: the archive, from the API (which checks access and the download limit).
    path: 'download_export',
    async handler(ctx) {
      requireMaintainer(ctx);
      ctx.reply.redirect(`/api/v4/projects/${ctx.project.id}/export/download`, 302);
      return SENT;
    },
  },
];
