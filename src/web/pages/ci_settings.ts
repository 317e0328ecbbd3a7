// A project's Settings → CI/CD (maintainers, as the API's variables are): the CI/CD variables —
// list, add, change, delete — with their type, environment scope, protected, masked, raw and
// description. A value never reaches the page: the list shows it hidden, and a change form sends a
// new value only when one is typed.
import { html, type Html } from '../html.js';
import { PageNotFound, type ProjectPage } from '../page.js';
import { settingsTabs } from '../views/settings_nav.js';
import { requireMaintainer } from './project_settings.js';

const TYPES: [string, string][] = [
  ['env_var', 'Variable'],
  ['file', 'File'],
];

/** The variable's path in the API: its key, and its environment scope as the filter. */
const variableApi = (p: any, v: any): string =>
  `/projects/${p.id}/variables/${encodeURIComponent(v.key)}?filter%5Benvironment_scope%5D=${encodeURIComponent(v.environment_scope)}`;

function variableFields(prefix: string, v: any | null): Html {
  const check = (name: string, label: string, hint: string) =>
    html`<label><input type="checkbox" name="${name}"${v?.[name] ? html` checked` : ''}> ${label}</label>
    <p class="muted indent">${hint}</p>`;
  return html`${
    v
      ? ''
      : html`<label><span>Key</span><input type="text" name="key" required pattern="[A-Za-z0-9_]+" maxlength="255" id="${prefix}-key"></label>`
  }
  <label><span>Value</span><textarea name="value" rows="3"${v ? html` placeholder="Unchanged unless you type a new value"` : html` required`}></textarea></label>
  <label><span>Type</span><select name="variable_type">${TYPES.map(
    ([value, label]) => html`<option value="${value}"${(v?.variable_type ?? 'env_var') === value ? html` selected` : ''}>${label}</option>`,
  )}</select></label>
  <label><span>Environment scope</span><input type="text" name="environment_scope" value="${v?.environment_scope ?? '*'}"></label>
  <label><span>Description (optional)</span><input type="text" name="description" data-send-empty value="${v?.description ?? ''}"></label>
  <fieldset>
    <legend>Flags</legend>
    ${check('protected', 'Protect variable', 'Export the variable to pipelines running on protected branches and tags only.')}
    ${check('masked', 'Mask variable', 'Hidden in job logs: at least 8 characters, of the Base64 alphabet, on one line.')}
    ${check('raw', 'Expand variable reference off', 'The value is taken as written: $ is not treated as the start of a reference to another variable.')}
  </fieldset>`;
}

function variableRow(p: any, v: any): Html {
  const name = `${v.key} (${v.environment_scope})`;
  return html`<tr>
  <td class="mono">${v.key}${v.description ? html`<br><span class="muted">${v.description}</span>` : ''}</td>
  <td>${v.variable_type === 'file' ? 'File' : 'Variable'}</td>
  <td><span class="mono" aria-label="Value hidden">*****</span></td>
  <td>${[v.protected ? 'Protected' : '', v.masked ? 'Masked' : '', v.raw ? 'Expanded off' : ''].filter(Boolean).join(' · ') || html`<span class="muted">None</span>`}</td>
  <td class="mono">${v.environment_scope}</td>
  <td><details class="row-edit" data-action-scope>
    <summary>Edit<span class="visually-hidden"> variable ${name}</span></summary>
    <form class="stack" data-api="${variableApi(p, v)}" data-method="PUT" aria-label="Edit variable ${name}">
      ${variableFields(`var-${v.key}-${v.environment_scope}`, v)}
      <button type="submit" class="primary">Update variable</button>
    </form>
    <button type="button" class="danger" data-api="${variableApi(p, v)}" data-method="DELETE" data-confirm="Delete the variable ${name}?">Delete variable<span class="visually-hidden"> ${name}</span></button>
  </details></td>
</tr>`;
}

export const ciSettingsPages: ProjectPage[] = [
  {
    path: 'settings/ci_cd',
    async handler(ctx) {
      requireMaintainer(ctx);
      const p = ctx.project;
      const a = await ctx.api.get(`/projects/${p.id}/variables?per_page=100`);
      if (a.status !== 200) throw new PageNotFound();
      const vars: any[] = a.body;
      return {
        title: `CI/CD settings · ${p.name_with_namespace}`,
        section: 'settings',
        body: html`<h1>CI/CD settings</h1>
${settingsTabs(p, 'ci_cd')}
<section aria-labelledby="variables-title">
  <h2 id="variables-title">Variables <span class="count">${vars.length}</span></h2>
  <p>Variables store information, like passwords and secret keys, that jobs use. Values are stored encrypted; masked ones are hidden in job logs.</p>
  ${
    vars.length === 0
      ? html`<p class="muted">There are no variables yet.</p>`
      : html`<table>
    <caption class="visually-hidden">CI/CD variables of the project</caption>
    <thead><tr><th scope="col">Key</th><th scope="col">Type</th><th scope="col">Value</th><th scope="col">Options</th><th scope="col">Environments</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${vars.map((v) => variableRow(p, v))}</tbody>
  </table>`
  }
  <section class="panel" aria-labelledby="add-variable-title">
    <h3 id="add-variable-title">Add variable</h3>
    <form class="stack" data-api="/projects/${p.id}/variables" data-method="POST" aria-label="Add variable">
      ${variableFields('new-var', null)}
      <button type="submit" class="primary">Add variable</button>
    </form>
  </section>
</section>`,
      };
    },
  },
];
