// Drives Anvil with @gitbeaker/rest as a user would. Prints one JSON line with what it saw.
import { Gitlab } from '@gitbeaker/rest';

const { ANVIL_URL: host, ANVIL_TOKEN: token, SUFFIX: suffix } = process.env;
const api = new Gitlab({ host, token });

const me = await api.Users.showCurrentUser();
const user = await api.Users.create({
  email: `gb${suffix}@example.com`, username: `gb${suffix}`, name: `Gb ${suffix}`, password: 's3cret-password', skipConfirmation: true,
});
const pat = await api.Users.createPersonalAccessToken(user.id, 'gb token', ['api']);
const asUser = new Gitlab({ host, token: pat.token });
const tokenUser = await asUser.Users.showCurrentUser();
const group = await api.Groups.create(`Gb Group ${suffix}`, `gb-group-${suffix}`);
// a project of the group and one shared with it: the group's detail and its project list show both
await api.Projects.create({ name: 'inside', namespaceId: group.id });
const outside = await api.Projects.create({ name: `outside-${suffix}` });
await api.Projects.share(outside.id, group.id, 30);
const detail = await api.Groups.show(group.id);
const groupProjects = await api.Groups.allProjects(group.id);
const ownProjects = await api.Groups.allProjects(group.id, { withShared: false });
const users = await api.Users.all({ perPage: 2 });
const groups = await api.Groups.all({ perPage: 2 });
console.log(JSON.stringify({
  me: me.username,
  created_user: user.username,
  token_user: tokenUser.username,
  group_path: group.full_path,
  user_count: users.length,
  user_ids_unique: new Set(users.map((u) => u.id)).size === users.length,
  group_paths: groups.map((g) => g.full_path).sort(),
  detail_projects: detail.projects.map((p) => p.path),
  detail_shared_projects: detail.shared_projects.map((p) => p.path),
  group_projects: groupProjects.map((p) => p.path).sort(),
  own_projects: ownProjects.map((p) => p.path),
}));
