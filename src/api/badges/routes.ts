// Badges of projects and groups (the same six endpoints under each), and the pipeline and
// coverage images badges point at.
import { Readable } from 'node:stream';
import { Type as T } from '@sinclair/typebox';
import { badgeImage, type BadgeImageKind } from '../../domain/badges/images.js';
import { changeBadge, createBadge, getBadge, listBadges, previewBadge, removeBadge, type BadgeSourceType } from '../../domain/badges/service.js';
import { mapPage } from '../../shared/page.js';
import { BADGE_IMAGE_PREFIX } from '../../http/project_urls.js';
import { FileBody, route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentBadge } from './present.js';
import { Badge, RenderedBadge } from './schemas.js';

const TAG = 'badges';

function endpoints(type: BadgeSourceType) {
  const base = `/${type}s/:id/badges`;
  const withBadge = { id: IdOrPath, badge_id: T.Integer() };
  return [
    route({
      method: 'GET',
      path: base,
      auth: 'optional',
      tag: TAG,
      summary: type === 'project' ? "A project's badges and those of its groups (name: exact, case-sensitive)" : "A group's badges (name: exact, case-sensitive)",
      params: T.Object({ id: IdOrPath, name: T.Optional(T.String()) }),
      response: Badge,
      paginated: true,
      handler: async ({ c, actor, input, page }) => mapPage(await listBadges(c, actor, type, input.id, input.name, page), presentBadge),
    }),
    route({
      method: 'GET',
      path: `${base}/render`,
      tag: TAG,
      summary: `Preview a ${type} badge: its URLs with placeholders resolved (maintainers; owners for groups)`,
      params: T.Object({ id: IdOrPath, link_url: T.String(), image_url: T.String() }),
      response: RenderedBadge,
      handler: async ({ c, actor, input }) => previewBadge(c, actor, type, input.id, input.link_url, input.image_url),
    }),
    route({
      method: 'GET',
      path: `${base}/:badge_id`,
      auth: 'optional',
      tag: TAG,
      summary: `One badge of a ${type}`,
      params: T.Object(withBadge),
      response: Badge,
      handler: async ({ c, actor, input }) => presentBadge(await getBadge(c, actor, type, input.id, input.badge_id)),
    }),
    route({
      method: 'POST',
      path: base,
      tag: TAG,
      summary: `Add a badge to a ${type}`,
      params: T.Object({ id: IdOrPath, link_url: T.String(), image_url: T.String(), name: T.Optional(T.String()) }),
      response: Badge,
      handler: async ({ c, actor, input }) => {
        const { id, ...rest } = input;
        return presentBadge(await createBadge(c, actor, type, id, rest));
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/:badge_id`,
      tag: TAG,
      summary: `Change a badge of a ${type}${type === 'project' ? ' (project badges only)' : ''}`,
      params: T.Object({ ...withBadge, link_url: T.Optional(T.String()), image_url: T.Optional(T.String()), name: T.Optional(T.String()) }),
      response: Badge,
      handler: async ({ c, actor, input }) => {
        const { id, badge_id, ...rest } = input;
        return presentBadge(await changeBadge(c, actor, type, id, badge_id, rest));
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/:badge_id`,
      tag: TAG,
      summary: `Remove a badge of a ${type}${type === 'project' ? ' (project badges only)' : ''}`,
      params: T.Object(withBadge),
      status: 204,
      handler: async ({ c, actor, input, ifUnmodifiedSince }) => removeBadge(c, actor, type, input.id, input.badge_id, ifUnmodifiedSince),
    }),
  ];
}

// The reference's no-cache headers: a badge always shows the current state.
const NO_CACHE = {
  'cache-control': 'max-age=0, private, must-revalidate, no-store, no-cache',
  pragma: 'no-cache',
  expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
};

const image = (kind: BadgeImageKind) =>
  route({
    method: 'GET',
    path: `${BADGE_IMAGE_PREFIX}/${kind}/:path`,
    outsideApi: true,
    auth: 'optional',
    tag: TAG,
    summary: `The ${kind} badge image of a ref: /{project path}/badges/{ref}/${kind}.svg`,
    params: T.Object({
      path: T.String(),
      key_text: T.Optional(T.String()),
      key_width: T.Optional(T.String()),
      style: T.Optional(T.String()),
      ...(kind === 'coverage' ? { job: T.Optional(T.String()) } : { ignore_skipped: T.Optional(T.String()) }),
    }),
    handler: async ({ c, actor, input }) => {
      const { path, ...opts } = input;
      const svg = Buffer.from(await badgeImage(c, actor, kind, path, opts), 'utf8');
      return new FileBody(Readable.from([svg]), 'image/svg+xml; charset=utf-8', svg.length, NO_CACHE);
    },
  });

export const badgeRoutes = [...endpoints('project'), ...endpoints('group'), image('pipeline'), image('coverage')];
