// Topics (`/topics`): anyone may list and read them; administrators create, edit, delete and merge
// them. A project's `topics` create the ones that do not exist yet (src/db/repos/topics.ts).
import fs from 'node:fs';
import type { Container } from '../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import {
  deleteTopic as deleteTopicRow, findTopic, findTopicByName, insertTopic, mergeTopics as mergeTopicRows, pageTopics,
  updateTopic as updateTopicRow, type TopicFields, type TopicWithCount,
} from '../../db/repos/topics.js';
import { requireAdmin, type Actor } from '../auth/actor.js';
import { apiError, notFound, recordNotFound, validation, type ValidationMessages } from '../errors.js';
import { avatarErrors } from '../projects/avatar.js';
import { readStoredFile, safeFilename, type IncomingFile, type StoredFile } from '../projects/files.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { nowIso } from '../../shared/time.js';

export type { TopicWithCount };

/** The model's limits, as the reference's. */
const NAME_MAX = 255;
const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1024;

const avatarPrefix = (topicId: number) => `topics/${topicId}/avatar/`;

export function listTopics(c: Container, input: { search?: string; without_projects?: boolean }, page: PageRequest): Promise<PageResult<TopicWithCount>> {
  return pageTopics(c.db, { search: input.search || undefined, withoutProjects: input.without_projects }, page);
}

async function topicById(c: Container, id: number): Promise<TopicWithCount> {
  const topic = await findTopic(c.db, id);
  if (!topic) throw recordNotFound();
  return topic;
}

export const getTopic = (c: Container, id: number) => topicById(c, id);

export interface TopicInput {
  name?: string;
  title?: string;
  description?: string | null;
  /** A file to store; `null` removes the avatar. */
  avatar?: IncomingFile | null;
}

async function fieldErrors(c: Container, input: TopicInput, creating: boolean, selfId: number | null): Promise<ValidationMessages> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (input.name !== undefined || creating) {
    const name = (input.name ?? '').trim();
    if (!name) add('name', "can't be blank");
    else if (name.length > NAME_MAX) add('name', `is too long (maximum is ${NAME_MAX} characters)`);
    else {
      const other = await findTopicByName(c.db, name);
      if (other && other.id !== selfId) add('name', 'has already been taken');
    }
  }
  if (creating) {
    const title = (input.title ?? '').trim();
    if (!title) add('title', "can't be blank");
  }
  if (input.title !== undefined && input.title.length > TITLE_MAX) add('title', `is too long (maximum is ${TITLE_MAX} characters)`);
  if (input.description && input.description.length > DESCRIPTION_MAX) add('description', `is too long (maximum is ${DESCRIPTION_MAX} characters)`);
  if (input.avatar) for (const e of avatarErrors(input.avatar)) add('avatar', e);
  return errors;
}

const TAKEN = () => validation({ name: ['has already been taken'] });

async function storeAvatar(c: Container, topicId: number, avatar: IncomingFile | null | undefined): Promise<string | null | undefined> {
  if (avatar === undefined) return undefined;
  await c.storage.deletePrefix(avatarPrefix(topicId));
  if (avatar === null) return null;
  const filename = safeFilename(avatar.filename);
  await c.storage.put(avatarPrefix(topicId) + filename, fs.createReadStream(avatar.path));
  return filename;
}

export async function createTopic(c: Container, actor: Actor | null, input: TopicInput): Promise<TopicWithCount> {
  requireAdmin(actor);
  const errors = await fieldErrors(c, input, true, null);
  if (Object.keys(errors).length) throw validation(errors);
  const fields: TopicFields = { name: input.name!.trim(), title: input.title!.trim(), description: input.description ?? null, avatar_path: null };
  let id: number;
  try {
    id = await insertTopic(c.db, fields, nowIso());
  } catch (err) {
    if (isUniqueViolation(err)) throw TAKEN();
    throw err;
  }
  const avatar = await storeAvatar(c, id, input.avatar);
  if (avatar) await updateTopicRow(c.db, id, { avatar_path: avatar }, nowIso());
  return topicById(c, id);
}

export async function updateTopic(c: Container, actor: Actor | null, id: number, input: TopicInput): Promise<TopicWithCount> {
  requireAdmin(actor);
  const topic = await topicById(c, id);
  const errors = await fieldErrors(c, input, false, topic.id);
  if (Object.keys(errors).length) throw validation(errors);
  const patch: Partial<TopicFields> = {};
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.title !== undefined) patch.title = input.title.trim();
  if (input.description !== undefined) patch.description = input.description;
  const avatar = await storeAvatar(c, topic.id, input.avatar);
  if (avatar !== undefined) patch.avatar_path = avatar;
  try {
    await updateTopicRow(c.db, topic.id, patch, nowIso());
  } catch (err) {
    if (isUniqueViolation(err)) throw TAKEN();
    throw err;
  }
  return topicById(c, topic.id);
}

export async function deleteTopic(c: Container, actor: Actor | null, id: number, ifUnmodifiedSince: Date | null): Promise<void> {
  requireAdmin(actor);
  const topic = await topicById(c, id);
  checkUnmodifiedSince(topic.updated_at, ifUnmodifiedSince);
  await deleteTopicRow(c.db, topic.id);
  await c.storage.deletePrefix(avatarPrefix(topic.id));
}

/** POST /topics/merge: the source's projects move to the target and the source is deleted. */
export async function mergeTopics(c: Container, actor: Actor | null, sourceId: number, targetId: number): Promise<TopicWithCount> {
  requireAdmin(actor);
  const source = await topicById(c, sourceId);
  const target = await topicById(c, targetId);
  if (source.id === target.id) throw apiError('The source topic and the target topic are identical.');
  await mergeTopicRows(c.db, source.id, target);
  await c.storage.deletePrefix(avatarPrefix(source.id));
  return topicById(c, target.id);
}

/** GET /uploads/-/system/projects/topic/avatar/:id/:filename: public, as topics are. */
export async function readTopicAvatar(c: Container, id: number, filename: string): Promise<StoredFile> {
  const topic = await findTopic(c.db, id);
  if (!topic?.avatar_path || topic.avatar_path !== filename) throw notFound();
  const file = await readStoredFile(c, avatarPrefix(topic.id) + filename, filename, true);
  if (!file) throw notFound();
  return file;
}
