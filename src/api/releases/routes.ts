// Releases and their asset links (the reference's API::Releases and API::Release::Links).
// Reads let anonymous callers in (a public project's releases); the domain decides who may see
// and change what. A CI job token is accepted (http/auth.ts), as release tools run in jobs.
import { Type as T } from '@sinclair/typebox';
import {
  createRelease, createReleaseLink, deleteRelease, deleteReleaseLinkAction, getRelease, getReleaseLink, latestReleaseTag, listReleaseLinks,
  listReleases, releaseDownloadUrl, updateRelease, updateReleaseLinkAction,
} from '../../domain/releases/service.js';
import { route } from '../../http/route.js';
import { mapPage } from '../../shared/page.js';
import { CommaList, IdOrPath, OneOf } from '../schemas.js';
import { presentRelease, presentReleaseLink } from './present.js';
import { LinkTypeValues, Release, ReleaseLink } from './schemas.js';

const TAG = 'releases';

const LinkParams = {
  name: T.String(),
  url: T.String(),
  filepath: T.Optional(T.String()),
  link_type: T.Optional(OneOf(LinkTypeValues)),
};

/** The path part of the external URL (a server behind a sub-path), before `/api/v4`. */
const basePath = (externalUrl: string) => new URL(externalUrl).pathname.replace(/\/+$/, '');

export const releaseRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/releases',
    tag: TAG,
    summary: "A project's releases",
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      order_by: T.Optional(OneOf(['released_at', 'created_at'] as const)),
      sort: T.Optional(OneOf(['asc', 'desc'] as const)),
      include_html_description: T.Optional(T.Boolean()),
      updated_before: T.Optional(T.String()),
      updated_after: T.Optional(T.String()),
    }),
    response: Release,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listReleases(c, actor, input.id, input, page), (v) => presentRelease(c, v)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/releases/permalink/latest',
    tag: TAG,
    summary: 'Redirects to the newest release (by released_at)',
    auth: 'optional',
    params: T.Object({ id: IdOrPath }),
    status: 302,
    handler: async ({ c, actor, input, request, reply }) => redirectToLatest(c, actor, input.id, '', request.url, reply),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/releases/permalink/latest/*',
    tag: TAG,
    summary: 'Redirects to a path under the newest release',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, '*': T.String() }),
    status: 302,
    handler: async ({ c, actor, input, request, reply }) => redirectToLatest(c, actor, input.id, input['*'], request.url, reply),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/releases/:tag_name',
    tag: TAG,
    summary: 'One release, by its tag',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String(), include_html_description: T.Optional(T.Boolean()) }),
    response: Release,
    handler: async ({ c, actor, input }) => presentRelease(c, await getRelease(c, actor, input.id, input.tag_name)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/releases/:tag_name/downloads/*',
    tag: TAG,
    summary: "Redirects to the URL of the release's asset link with this file path",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String(), '*': T.String() }),
    status: 302,
    handler: async ({ c, actor, input, reply }) => {
      reply.header('location', await releaseDownloadUrl(c, actor, input.id, input.tag_name, input['*']));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/releases',
    tag: TAG,
    summary: 'Create a release (and its tag from `ref` when the tag does not exist)',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      tag_name: T.String(),
      tag_message: T.Optional(T.String()),
      name: T.Optional(T.String()),
      description: T.Optional(T.String()),
      ref: T.Optional(T.String()),
      assets: T.Optional(T.Object({ links: T.Optional(T.Array(T.Object(LinkParams))) })),
      milestones: T.Optional(CommaList(T.String())),
      released_at: T.Optional(T.String()),
    }),
    response: Release,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentRelease(c, await createRelease(c, actor!, id, rest));
    },
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/releases/:tag_name',
    tag: TAG,
    summary: 'Change a release',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      tag_name: T.String(),
      name: T.Optional(T.String()),
      description: T.Optional(T.String()),
      released_at: T.Optional(T.String()),
      milestones: T.Optional(CommaList(T.String())),
    }),
    response: Release,
    handler: async ({ c, actor, input }) => {
      const { id, tag_name, ...rest } = input;
      return presentRelease(c, await updateRelease(c, actor!, id, tag_name, rest));
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/releases/:tag_name',
    tag: TAG,
    summary: 'Delete a release (its tag stays)',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String() }),
    response: Release,
    handler: async ({ c, actor, input }) => presentRelease(c, await deleteRelease(c, actor!, input.id, input.tag_name)),
  }),

  route({
    method: 'GET',
    path: '/projects/:id/releases/:tag_name/assets/links',
    tag: TAG,
    summary: "A release's asset links, newest first",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String() }),
    response: ReleaseLink,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listReleaseLinks(c, actor, input.id, input.tag_name, page), (v) => presentReleaseLink(c, v)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/releases/:tag_name/assets/links/:link_id',
    tag: TAG,
    summary: 'One asset link',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String(), link_id: T.Integer({ format: 'int32' }) }),
    response: ReleaseLink,
    handler: async ({ c, actor, input }) => presentReleaseLink(c, await getReleaseLink(c, actor, input.id, input.tag_name, input.link_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/releases/:tag_name/assets/links',
    tag: TAG,
    summary: 'Add an asset link',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String(), ...LinkParams }),
    response: ReleaseLink,
    handler: async ({ c, actor, input }) => {
      const { id, tag_name, ...rest } = input;
      return presentReleaseLink(c, await createReleaseLink(c, actor!, id, tag_name, rest));
    },
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/releases/:tag_name/assets/links/:link_id',
    tag: TAG,
    summary: 'Change an asset link',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      tag_name: T.String(),
      link_id: T.Integer({ format: 'int32' }),
      name: T.Optional(T.String()),
      url: T.Optional(T.String()),
      filepath: T.Optional(T.String()),
      link_type: T.Optional(OneOf(LinkTypeValues)),
    }),
    paramRules: { atLeastOneOf: [['name', 'url']] },
    response: ReleaseLink,
    handler: async ({ c, actor, input }) => {
      const { id, tag_name, link_id, ...rest } = input;
      return presentReleaseLink(c, await updateReleaseLinkAction(c, actor!, id, tag_name, link_id, rest));
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/releases/:tag_name/assets/links/:link_id',
    tag: TAG,
    summary: 'Remove an asset link',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, tag_name: T.String(), link_id: T.Integer({ format: 'int32' }) }),
    response: ReleaseLink,
    handler: async ({ c, actor, input }) => presentReleaseLink(c, await deleteReleaseLinkAction(c, actor!, input.id, input.tag_name, input.link_id)),
  }),
];

async function redirectToLatest(
  c: Parameters<typeof latestReleaseTag>[0],
  actor: Parameters<typeof latestReleaseTag>[1],
  id: number | string,
  suffix: string,
  url: string,
  reply: { header(name: string, value: string): void },
): Promise<void> {
  const latest = await latestReleaseTag(c, actor, id);
  let to = `${basePath(c.config.externalUrl)}/api/v4/projects/${latest.projectId}/releases/${encodeURIComponent(latest.tag)}`;
  if (suffix) to += `/${suffix}`;
  const query = new URLSearchParams(url.split('?')[1] ?? '');
  query.delete('order_by');
  const rest = query.toString();
  reply.header('location', rest ? `${to}?${rest}` : to);
}
