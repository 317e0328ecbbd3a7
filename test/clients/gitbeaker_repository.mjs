// Drives the repository extras with @gitbeaker/rest as a user would: archive, blob and raw blob,
// contributors, a commit's refs, cherry-pick, revert, the changelog (GET and POST), and the errors
// it raises. Prints one JSON line with what it saw.
import { Gitlab } from '@gitbeaker/rest';

const { ANVIL_URL: host, ANVIL_TOKEN: token, REPORTER_TOKEN: reporterToken, PROJECT_ID, CHANGE_SHA: change, BLOB_SHA: blobSha } = process.env;
const api = new Gitlab({ host, token });
const id = Number(PROJECT_ID);
const status = async (p) => p.then(() => 0, (e) => e.cause?.response?.status ?? -1);

const archive = await api.Repositories.showArchive(id, { fileType: 'zip', sha: 'main' });
const bytes = Buffer.from(await archive.arrayBuffer());
const blob = await api.Repositories.showBlob(id, blobSha);
const raw = await api.Repositories.showBlobRaw(id, blobSha);
const contributors = await api.Repositories.allContributors(id);
const refs = await api.Commits.allReferences(id, change, { type: 'branch' });
const picked = await api.Commits.cherryPick(id, change, 'gb');
const reverted = await api.Commits.revert(id, picked.id, 'gb');
const notes = await api.Repositories.showChangelog(id, '2.0.0', { from: 'v1.0.0' });
await api.Repositories.editChangelog(id, '2.0.0', { from: 'v1.0.0', branch: 'gb' });
const changelogFile = await api.RepositoryFiles.showRaw(id, 'CHANGELOG.md', 'gb');

console.log(JSON.stringify({
  zip: bytes.subarray(0, 2).toString('latin1'),
  blob: { size: blob.size, encoding: blob.encoding, content: Buffer.from(blob.content, 'base64').toString(), sha: blob.sha },
  raw: typeof raw === 'string' ? raw : await raw.text(),
  contributors: contributors.map((c) => [c.name, c.commits]),
  refs: refs.map((r) => `${r.type}:${r.name}`).sort(),
  picked_message: picked.message,
  reverted_title: reverted.title,
  notes_head: notes.notes.split('\n')[0].replace(/\(.*\)/, '(date)'),
  changelog_has_release: String(changelogFile).includes('## 2.0.0'),
  errors: {
    unknown_commit: await status(api.Commits.cherryPick(id, 'f'.repeat(40), 'gb')),
    empty: await status(api.Commits.cherryPick(id, change, 'gb2')),
    reporter: await status(new Gitlab({ host, token: reporterToken }).Commits.revert(id, change, 'gb')),
    bad_token: await status(new Gitlab({ host, token: 'nope' }).Repositories.showBlob(id, blobSha)),
    unknown_blob: await status(api.Repositories.showBlob(id, '0'.repeat(40))),
  },
}));
