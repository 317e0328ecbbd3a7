// Topics: GET for anyone, changes for administrators.
import { Type as T, type Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import { mapPage } from '../../shared/page.js';
import {
  createTopic, deleteTopic, getTopic, listTopics, mergeTopics, readTopicAvatar, updateTopic, type TopicInput, type TopicWithCount,
} from '../../domain/topics/service.js';
import { route } from '../../http/route.js';
import { fileBody, fileParam } from '../projects/uploads_routes.js';
import { BlankClears, Nullable } from '../schemas.js';

const TAG = 'topics';

/** The reference's Projects::Topic entity. */
export const Topic = T.Object({
  id: T.Integer(),
  name: T.String(),
  title: T.String(),
  description: Nullable(T.String()),
  total_projects_count: T.Integer(),
  avatar_url: Nullable(T.String()),
});

const avatarUrl = (c: Container, t: TopicWithCount) =>
  t.avatar_path ? `${c.config.externalUrl}/uploads/-/system/projects/topic/avatar/${t.id}/${t.avatar_path}` : null;

const present = (c: Container, t: TopicWithCount): Static<typeof Topic> => ({
  id: t.id,
  name: t.name,
  title: t.title,
  description: t.description,
  total_projects_count: Number(t.total_projects_count),
  avatar_url: avatarUrl(c, t),
});

const TopicId = { id: T.Integer() };
const FIELDS = { title: T.Optional(T.String()), description: T.Optional(T.String()), avatar: T.Optional(BlankClears(T.Any())) };

/** A multipart file stores an avatar; a blank value removes it, as the reference's. */
const avatarOf = (v: unknown): TopicInput['avatar'] => (v === '' || v === null ? null : fileParam('avatar', v));

export const topicRoutes = [
  route({
    method: 'GET',
    path: '/topics',
    tag: TAG,
    summary: 'Topics, the most used first',
    auth: 'optional',
    params: T.Object({ search: T.Optional(T.String()), without_projects: T.Optional(T.Boolean()) }),
    paginated: true,
    response: Topic,
    handler: async ({ c, input, page }) => mapPage(await listTopics(c, input, page), (t) => present(c, t)),
  }),
  route({
    method: 'GET',
    path: '/topics/:id',
    tag: TAG,
    summary: 'One topic',
    auth: 'optional',
    params: T.Object(TopicId),
    response: Topic,
    handler: async ({ c, input }) => present(c, await getTopic(c, input.id)),
  }),
  route({
    method: 'POST',
    path: '/topics',
    admin: true,
    tag: TAG,
    summary: 'Create a topic (admin)',
    params: T.Object({ name: T.String(), ...FIELDS, title: T.String() }),
    response: Topic,
    handler: async ({ c, actor, input }) => present(c, await createTopic(c, actor, { ...input, avatar: input.avatar === undefined ? undefined : avatarOf(input.avatar) })),
  }),
  route({
    method: 'PUT',
    path: '/topics/:id',
    admin: true,
    tag: TAG,
    summary: 'Edit a topic (admin)',
    params: T.Object({ ...TopicId, name: T.Optional(T.String()), ...FIELDS }),
    response: Topic,
    handler: async ({ c, actor, input }) => {
      const { id, avatar, ...rest } = input;
      return present(c, await updateTopic(c, actor, id, { ...rest, avatar: avatar === undefined ? undefined : avatarOf(avatar) }));
    },
  }),
  route({
    method: 'DELETE',
    path: '/topics/:id',
    admin: true,
    tag: TAG,
    summary: 'Delete a topic (admin); its projects lose it',
    params: T.Object(TopicId),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => deleteTopic(c, actor, input.id, ifUnmodifiedSince),
  }),
  route({
    method: 'POST',
    path: '/topics/merge',
    admin: true,
    tag: TAG,
    summary: "Merge a topic into another (admin): the source's projects move to the target",
    params: T.Object({ source_topic_id: T.Integer(), target_topic_id: T.Integer() }),
    response: Topic,
    handler: async ({ c, actor, input }) => present(c, await mergeTopics(c, actor, input.source_topic_id, input.target_topic_id)),
  }),
  route({
    method: 'GET',
    path: '/uploads/-/system/projects/topic/avatar/:id/:filename',
    outsideApi: true,
    tag: TAG,
    summary: "A topic's avatar image",
    auth: 'optional',
    params: T.Object({ id: T.Integer(), filename: T.String() }),
    handler: async ({ c, input }) => fileBody(await readTopicAvatar(c, input.id, input.filename)),
  }),
];
