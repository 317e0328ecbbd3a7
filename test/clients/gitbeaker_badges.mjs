// Drives project and group badges and project vulnerabilities with @gitbeaker/rest as a user
// would. Prints one JSON line with what it saw.
import { Gitlab } from '@gitbeaker/rest';

const { ANVIL_URL: host, ANVIL_TOKEN: token, SUFFIX: suffix, PROJECT_ID: vulnProject, FINDING_ID: findingId } = process.env;
const api = new Gitlab({ host, token });

const group = await api.Groups.create(`Gb Badges ${suffix}`, `gb-badges-${suffix}`);
const project = await api.Projects.create({ name: 'widget', namespaceId: group.id });
const gbadge = await api.GroupBadges.add(group.id, 'https://g.example/%{project_path}', 'https://g.example/i.svg', { name: 'group badge' });
const pbadge = await api.ProjectBadges.add(project.id, 'https://p.example/%{project_id}', 'https://p.example/%{default_branch}.svg');
await api.ProjectBadges.edit(project.id, pbadge.id, { name: 'renamed' });
const shown = await api.ProjectBadges.show(project.id, pbadge.id);
const preview = await api.ProjectBadges.preview(project.id, 'https://r.example/%{project_path}', 'https://r.example/i.svg');
const listed = await api.ProjectBadges.all(project.id);
const groupListed = await api.GroupBadges.all(group.id);
await api.ProjectBadges.remove(project.id, pbadge.id);
const afterDelete = await api.ProjectBadges.all(project.id);
await api.GroupBadges.remove(group.id, gbadge.id);

const created = await api.ProjectVulnerabilities.create(vulnProject, Number(findingId));
const vulns = await api.ProjectVulnerabilities.all(vulnProject);

console.log(JSON.stringify({
  project_id: project.id,
  project_path: project.path_with_namespace,
  group_badge_kind: gbadge.kind,
  project_badge: { kind: shown.kind, name: shown.name, rendered_link_url: shown.rendered_link_url, rendered_image_url: shown.rendered_image_url },
  rendered: preview,
  listed: listed.map((b) => [b.name, b.kind]),
  group_listed: groupListed.map((b) => b.name),
  after_delete: afterDelete.map((b) => b.name),
  vulnerability: { title: created.title, state: created.state, finding_id: created.finding.id, severity: created.severity },
  vulnerability_ids: vulns.map((v) => v.id),
  created_id: created.id,
}));
