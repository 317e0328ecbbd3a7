// Content without git: commits from actions, commit readers, repository files and the tree.
import { Type as T } from '@sinclair/typebox';
import { createCommit, getCommit, getCommitDiff, listCommits } from '../../domain/repository/commits.js';
import { compareRefs, mergeBaseOf } from '../../domain/repository/compare.js';
import { createTag, deleteTag, getTag, listTags } from '../../domain/repository/tags.js';
import { blameFile, createFile, deleteFile, fileHeaders, getFile, rawFile, updateFile } from '../../domain/repository/files.js';
import { listTree } from '../../domain/repository/tree.js';
import { archiveFormatNames, repositoryArchive } from '../../domain/repository/archive.js';
import { getBlob, listContributors, rawBlob } from '../../domain/repository/blobs.js';
import { commitChangelog, generateChangelog } from '../../domain/repository/changelog.js';
import { commitRefs } from '../../domain/repository/commits.js';
import { pickCommit, type PickAction } from '../../domain/repository/pick.js';
import { exactError } from '../../domain/errors.js';
import { UNKNOWN_ROUTE } from '../../http/errors.js';
import { mapPage } from '../../shared/page.js';
import { FileBody, route } from '../../http/route.js';
import { IdOrPath, NotBlank, OneOf } from '../schemas.js';
import { presentBlameRun, presentCommit, presentCommitDetail, presentCompare, presentDiff, presentTag, presentTreeEntry } from './present.js';
import { BasicRef, BlameRange, Blob, Changelog, Commit, CommitDetail, Compare, Contributor, Diff, DryRunSuccess, FileWriteResult, RepositoryFile, Tag, TreeObject } from './schemas.js';

const TAG = 'repository';

const AUTHOR = { author_email: T.Optional(T.String()), author_name: T.Optional(T.String()) };
const FILE_WRITE = {
  id: IdOrPath,
  file_path: T.String(),
  branch: T.String(),
  start_branch: T.Optional(T.String()),
  encoding: T.Optional(OneOf(['text', 'base64'] as const)),
  commit_message: T.String(),
  ...AUTHOR,
};

/** The archive routes: `…/archive` (format from the query, tar.gz by default) and `…/archive.<format>`. */
const archiveRoute = (suffix: boolean) =>
  route({
    method: 'GET',
    path: `/projects/:id/repository/archive${suffix ? '.:format' : ''}`,
    tag: TAG,
    summary: 'An archive of the repository at a ref (tar.gz, tar.bz2, tar or zip), streamed from git',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      sha: T.Optional(T.String()),
      format: T.Optional(T.String()),
      path: T.Optional(T.String()),
      include_lfs_blobs: T.Optional(T.Boolean()),
    }),
    handler: async ({ c, actor, input }) => {
      // a suffix that names no format is no route of the reference's (its path requirement)
      if (suffix && !archiveFormatNames.includes(input.format ?? '')) throw exactError(UNKNOWN_ROUTE.status, UNKNOWN_ROUTE.body);
      const format = input.format !== undefined && archiveFormatNames.includes(input.format) ? input.format : undefined;
      const a = await repositoryArchive(c, actor, input.id, { ref: input.sha, format, path: input.path, appendSha: true });
      return new FileBody(a.stream, a.contentType, null, a.headers);
    },
  });

const pickRoute = (action: PickAction) =>
  route({
    method: 'POST',
    path: `/projects/:id/repository/commits/:sha/${action}`,
    tag: TAG,
    summary: action === 'cherry_pick' ? "Apply a commit's change on a branch as a new commit" : "Undo a commit's change on a branch with a new commit",
    params: T.Object({
      id: IdOrPath,
      sha: T.String(),
      branch: NotBlank(T.String()),
      dry_run: T.Optional(T.Boolean()),
      ...(action === 'cherry_pick' ? { message: T.Optional(T.String()) } : {}),
    }),
    response: T.Union([Commit, DryRunSuccess]),
    handler: async ({ c, actor, input, reply }) => {
      const { id, sha, ...rest } = input as { id: number | string; sha: string; branch: string; dry_run?: boolean; message?: string };
      const r = await pickCommit(c, actor, id, sha, action, rest);
      if (r.dryRun) {
        reply.status(200);
        return { dry_run: 'success' };
      }
      return presentCommit(c, { commit: r.commit, project: r.project });
    },
  });

const CHANGELOG_PARAMS = {
  id: IdOrPath,
  version: NotBlank(T.String()),
  from: T.Optional(T.String()),
  to: T.Optional(T.String()),
  date: T.Optional(T.String()),
  trailer: T.Optional(T.String()),
  config_file: T.Optional(T.String()),
};

export const repositoryRoutes = [
  archiveRoute(false),
  archiveRoute(true),
  route({
    method: 'GET',
    path: '/projects/:id/repository/blobs/:sha',
    tag: TAG,
    summary: 'A blob by its sha, content in base64',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, sha: T.String() }),
    response: Blob,
    handler: async ({ c, actor, input }) => getBlob(c, actor, input.id, input.sha),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/blobs/:sha/raw',
    tag: TAG,
    summary: "A blob's raw bytes by its sha",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, sha: T.String() }),
    handler: async ({ c, actor, input }) => {
      const f = await rawBlob(c, actor, input.id, input.sha);
      return new FileBody(f.stream, f.contentType, f.size, { ...f.headers, 'cache-control': 'no-cache, no-store', pragma: 'no-cache', expires: 'Fri, 01 Jan 1990 00:00:00 GMT' });
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/contributors',
    tag: TAG,
    summary: "Authors of a ref's newest 2000 commits (merges left out) with their commit counts",
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      ref: T.Optional(T.String()),
      order_by: T.Optional(OneOf(['email', 'name', 'commits'] as const)),
      sort: T.Optional(OneOf(['asc', 'desc'] as const)),
    }),
    response: Contributor,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...rest } = input;
      return listContributors(c, actor, id, rest, page);
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/changelog',
    tag: TAG,
    summary: "A release's changelog section from the trailers of its commits (not committed)",
    auth: 'optional',
    params: T.Object(CHANGELOG_PARAMS),
    response: Changelog,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return generateChangelog(c, actor, id, rest);
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/repository/changelog',
    tag: TAG,
    summary: "Commit a release's changelog section into the changelog file of a branch",
    params: T.Object({ ...CHANGELOG_PARAMS, branch: T.Optional(T.String()), file: T.Optional(T.String()), message: T.Optional(T.String()) }),
    response: T.Integer(),
    status: 200,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      await commitChangelog(c, actor, id, rest);
      return 200; // the reference's body: the value of its last expression, `status(200)`
    },
  }),
  pickRoute('cherry_pick'),
  pickRoute('revert'),
  route({
    method: 'GET',
    path: '/projects/:id/repository/commits/:sha/refs',
    tag: TAG,
    summary: 'The branches and tags a commit is in',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, sha: T.String(), type: T.Optional(OneOf(['branch', 'tag', 'all'] as const)) }),
    response: BasicRef,
    paginated: true,
    handler: async ({ c, actor, input, page }) => commitRefs(c, actor, input.id, input.sha, input.type ?? 'all', page),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/commits',
    tag: TAG,
    summary: 'Commits of a ref (no totals, as in the reference)',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      ref_name: T.Optional(T.String()),
      since: T.Optional(T.String()),
      until: T.Optional(T.String()),
      path: T.Optional(T.String()),
      all: T.Optional(T.Boolean()),
      with_stats: T.Optional(T.Boolean()),
      first_parent: T.Optional(T.Boolean()),
      order: T.Optional(OneOf(['default', 'topo'] as const)),
    }),
    response: Commit,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...rest } = input;
      return mapPage(await listCommits(c, actor, id, rest, page), (v) => presentCommit(c, v));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/repository/commits',
    tag: TAG,
    summary: 'Commit several file changes as one commit',
    params: T.Object({
      id: IdOrPath,
      branch: NotBlank(T.String()),
      commit_message: T.String(),
      actions: T.Array(T.Unknown()),
      start_branch: T.Optional(T.String()),
      start_sha: T.Optional(T.String()),
      force: T.Optional(T.Boolean()),
      stats: T.Optional(T.Boolean()),
      ...AUTHOR,
    }),
    paramRules: { mutuallyExclusive: [['start_branch', 'start_sha']] },
    response: CommitDetail,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentCommitDetail(c, await createCommit(c, actor, id, rest));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/commits/:sha',
    tag: TAG,
    summary: 'One commit, with its stats',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, sha: T.String(), stats: T.Optional(T.Boolean()) }),
    response: CommitDetail,
    handler: async ({ c, actor, input }) => presentCommitDetail(c, await getCommit(c, actor, input.id, input.sha, input.stats !== false)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/commits/:sha/diff',
    tag: TAG,
    summary: "A commit's changed files with their patches (against its first parent)",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, sha: T.String() }),
    response: Diff,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await getCommitDiff(c, actor, input.id, input.sha, page), presentDiff),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/compare',
    tag: TAG,
    summary: 'Commits and diff between two refs (from their merge base, or straight from `from`)',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, from: T.String(), to: T.String(), straight: T.Optional(T.Boolean()) }),
    response: Compare,
    handler: async ({ c, actor, input }) => presentCompare(c, await compareRefs(c, actor, input.id, input)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/merge_base',
    tag: TAG,
    summary: 'The common ancestor of two or more refs',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, refs: T.Array(T.String()) }),
    response: Commit,
    handler: async ({ c, actor, input }) => {
      const r = await mergeBaseOf(c, actor, input.id, input.refs);
      return presentCommit(c, { commit: r.commit, project: r.project });
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/tags',
    tag: TAG,
    summary: 'Tags, newest first (order_by name|updated|version, sort, search ^prefix / suffix$)',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      order_by: T.Optional(OneOf(['name', 'updated', 'version'] as const)),
      sort: T.Optional(OneOf(['asc', 'desc'] as const)),
      search: T.Optional(T.String()),
    }),
    response: Tag,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...rest } = input;
      return mapPage(await listTags(c, actor, id, rest, page), (v) => presentTag(c, v));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/tags/:tag_name',
    tag: TAG,
    summary: 'One tag',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String() }),
    response: Tag,
    handler: async ({ c, actor, input }) => presentTag(c, await getTag(c, actor, input.id, input.tag_name)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/repository/tags',
    tag: TAG,
    summary: 'Create a tag at a ref (a message makes it annotated)',
    params: T.Object({ id: IdOrPath, tag_name: T.String(), ref: T.String(), message: T.Optional(T.String()) }),
    response: Tag,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentTag(c, await createTag(c, actor, id, rest));
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/repository/tags/:tag_name',
    tag: TAG,
    summary: 'Delete a tag',
    params: T.Object({ id: IdOrPath, tag_name: T.String() }),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => deleteTag(c, actor, input.id, input.tag_name, ifUnmodifiedSince),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/tree',
    tag: TAG,
    summary: 'Entries of a directory at a ref',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, ref: T.Optional(T.String()), path: T.Optional(T.String()), recursive: T.Optional(T.Boolean()) }),
    response: TreeObject,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...rest } = input;
      return mapPage(await listTree(c, actor, id, rest, page), presentTreeEntry);
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/files/:file_path/raw',
    tag: TAG,
    summary: "A file's raw bytes (default branch unless ref is given)",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, file_path: T.String(), ref: T.Optional(T.String()) }),
    handler: async ({ c, actor, input }) => {
      const f = await rawFile(c, actor, input.id, input.file_path, input.ref);
      return new FileBody(f.stream, f.contentType, f.size, f.headers);
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/files/:file_path/blame',
    tag: TAG,
    summary: 'Who last changed each line of a file: runs of lines with their commit',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      file_path: T.String(),
      ref: T.String(),
      range: T.Optional(T.Object({ start: T.Integer({ minimum: 1 }), end: T.Integer({ minimum: 1 }) })),
    }),
    response: T.Array(BlameRange),
    handler: async ({ c, actor, input }) => (await blameFile(c, actor, input.id, input.file_path, input.ref, input.range)).map(presentBlameRun),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/files/:file_path',
    tag: TAG,
    summary: 'A file with its metadata and base64 content (HEAD: the metadata as headers)',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, file_path: T.String(), ref: T.String() }),
    response: RepositoryFile,
    handler: async ({ c, actor, input, reply }) => {
      const f = await getFile(c, actor, input.id, input.file_path, input.ref);
      const { content: _content, ...meta } = f;
      for (const [k, v] of Object.entries(fileHeaders(meta))) reply.header(k, v);
      return f;
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/repository/files/:file_path',
    tag: TAG,
    summary: 'Create a file (one commit)',
    params: T.Object({ ...FILE_WRITE, content: T.String(), execute_filemode: T.Optional(T.Boolean()) }),
    response: FileWriteResult,
    handler: async ({ c, actor, input }) => createFile(c, actor, input.id, input.file_path, input),
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/repository/files/:file_path',
    tag: TAG,
    summary: 'Update a file (one commit)',
    params: T.Object({ ...FILE_WRITE, content: T.String(), execute_filemode: T.Optional(T.Boolean()), last_commit_id: T.Optional(T.String()) }),
    response: FileWriteResult,
    handler: async ({ c, actor, input }) => updateFile(c, actor, input.id, input.file_path, input),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/repository/files/:file_path',
    tag: TAG,
    summary: 'Delete a file (one commit)',
    params: T.Object({ ...FILE_WRITE, last_commit_id: T.Optional(T.String()) }),
    status: 204,
    handler: async ({ c, actor, input }) => {
      await deleteFile(c, actor, input.id, input.file_path, input);
    },
  }),
];
