# Drives system hooks, project hooks and project aliases with python-gitlab, unchanged. Prints one JSON line.
import json
import os

import gitlab

url, token, rx = os.environ['ANVIL_URL'], os.environ['ANVIL_TOKEN'], os.environ['RECEIVER']
gl = gitlab.Gitlab(url, private_token=token)

hook = gl.hooks.create({'url': rx + '/py-system', 'token': 'py-token', 'push_events': True})
shown = gl.hooks.get(hook.id)
listed = [h.id for h in gl.hooks.list(all=True)]

project = gl.projects.create({'name': 'py-hooked', 'initialize_with_readme': True})
ph = project.hooks.create({'url': rx + '/py-project', 'push_events': True, 'push_events_branch_filter': 'main', 'token': 't'})
ph.tag_push_events = True
ph.save()
again = project.hooks.get(ph.id)
project_hooks = [h.id for h in project.hooks.list()]

alias = gl.http_post('/project_aliases', post_data={'project_id': project.id, 'name': 'py-alias'})
by_alias = gl.projects.get('py-alias')
aliases = [a['name'] for a in gl.http_list('/project_aliases', all=True)]

ph.delete()
hook.delete()
gl.http_delete('/project_aliases/py-alias')

print(json.dumps({
    'hook_url': shown.url,
    'hook_push_events': shown.push_events,
    'hook_has_token': hasattr(shown, 'token'),
    'hook_listed': hook.id in listed,
    'project_hook_tag_push_events': again.tag_push_events,
    'project_hook_filter': again.push_events_branch_filter,
    'project_hook_alert_status': again.alert_status,
    'project_hook_listed': ph.id in project_hooks,
    'alias': alias,
    'alias_project_id': by_alias.id,
    'project_id': project.id,
    'aliases': aliases,
    'hooks_after': len(gl.hooks.list(all=True)),
    'project_hooks_after': len(project.hooks.list()),
}))
