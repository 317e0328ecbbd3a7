// Drives merge requests with @gitbeaker/rest as a bot would: open, list, edit, read its commits and
// diffs, refuse a stale sha, merge. Prints one JSON line with what it saw.
import { Gitlab } from '@gitbeaker/rest';

const { ANVIL_URL: host, ANVIL_TOKEN: token, PROJECT_ID: projectId } = process.env;
const api = new Gitlab({ host, token });
const pid = Number(projectId);

const mr = await api.MergeRequests.create(pid, 'gb-feature', 'main', 'Gitbeaker change', { description: 'from gitbeaker', removeSourceBranch: true });
const listed = await api.MergeRequests.all({ projectId: pid, state: 'opened' });
const edited = await api.MergeRequests.edit(pid, mr.iid, { title: 'Gitbeaker change, edited' });
const commits = await api.MergeRequests.allCommits(pid, mr.iid);
const diffs = await api.MergeRequests.allDiffs(pid, mr.iid);
let stale = null;
try {
  await api.MergeRequests.accept(pid, mr.iid, { sha: '0'.repeat(40) });
} catch (e) {
  stale = e.cause?.response?.status ?? null;
}
const merged = await api.MergeRequests.accept(pid, mr.iid, { sha: mr.sha, shouldRemoveSourceBranch: true });
console.log(JSON.stringify({
  iid: mr.iid,
  detailed: mr.detailed_merge_status,
  listed: listed.map((m) => m.iid),
  edited: edited.title,
  commits: commits.map((c) => c.title),
  diffs: diffs.map((d) => d.new_path),
  stale,
  state: merged.state,
  merge_commit_sha: merged.merge_commit_sha,
}));
