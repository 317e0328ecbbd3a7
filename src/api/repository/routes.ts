// Content without git: commits from actions, commit readers, repository files and the tree.
import { Type as T } from '@sinclair/typebox';
import { createCommit, getCommit, getCommitDiff, listCommits } from '../../domain/repository/commits.js';
import { compareRefs, mergeBaseOf } from '../../domain/repository/compare.js';
import { createTag, deleteTag, getTag, listTags } from '../../domain/repository/tags.js';
import { blameFile, createFile, deleteFile, fileHeaders, getFile, rawFile, updateFile } from '../../domain/repository/files.js';
import { listTree } from '../../domain/repository/tree.js';
import { mapPage } from '../../shared/page.js';
import { FileBody, route } from '../../http/route.js';
import { IdOrPath, NotBlank, OneOf } from '../schemas.js';
import { presentBlameRun, presentCommit, presentCommitDetail, presentCompare, presentDiff, presentTag, presentTreeEntry } from './present.js';
import { BlameRange, Commit, CommitDetail, Compare, Diff, FileWriteResult, RepositoryFile, Tag, TreeObject } from './schemas.js';

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

export const repositoryRoutes = [
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
