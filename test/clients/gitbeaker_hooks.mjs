// Drives system hooks, project hooks and project aliases with @gitbeaker/rest, unchanged. Prints one JSON line.
import { Gitlab } from '@gitbeaker/rest';

const { ANVIL_URL: host, ANVIL_TOKEN: token, RECEIVER: rx } = process.env;
const api = new Gitlab({ host, token });

const hook = await api.SystemHooks.add(`${rx}/gb-system`, { token: 'gb-token', tagPushEvents: true });
// gitbeaker 43's SystemHooks.show POSTs (it is the test), so the hook is read from the list.
const all = await api.SystemHooks.all();
const shown = all.find((h) => h.id === hook.id);
const tested = await api.SystemHooks.test(hook.id);
const listed = all.map((h) => h.id);

const project = await api.Projects.create({ name: 'gb-hooked', initializeWithReadme: true });
const ph = await api.ProjectHooks.add(project.id, `${rx}/gb-project`, { pushEvents: true, jobEvents: true });
const edited = await api.ProjectHooks.edit(project.id, ph.id, `${rx}/gb-project2`, { pipelineEvents: true });
const phShown = await api.ProjectHooks.show(project.id, ph.id);
const phListed = (await api.ProjectHooks.all(project.id)).map((h) => h.id);

const alias = await api.ProjectAliases.create(project.id, 'gb-alias');
const aliases = (await api.ProjectAliases.all()).map((a) => a.name);
const byAlias = await api.Projects.show('gb-alias');

await api.ProjectAliases.remove('gb-alias');
await api.ProjectHooks.remove(project.id, ph.id);
await api.SystemHooks.remove(hook.id);

console.log(JSON.stringify({
  hook_url: shown.url,
  hook_tag_push_events: shown.tag_push_events,
  hook_has_token: 'token' in shown,
  tested,
  hook_listed: listed.includes(hook.id),
  project_hook_url: edited.url,
  project_hook_pipeline_events: phShown.pipeline_events,
  project_hook_job_events: phShown.job_events,
  project_hook_listed: phListed.includes(ph.id),
  alias,
  aliases,
  alias_project_id: byAlias.id,
  project_id: project.id,
  hooks_after: (await api.SystemHooks.all()).length,
  aliases_after: (await api.ProjectAliases.all()).length,
}));
