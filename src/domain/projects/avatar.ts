// Project avatars: `PUT /projects/:id` with a multipart `avatar` stores the image and answers with
// the whole project, as the reference does. The image is served at
// `/uploads/-/system/project/avatar/:id/:filename` to whoever may read the project.
import fs from 'node:fs';
import type { Container } from '../context.js';
import { updateProject as updateProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound, validation } from '../errors.js';
import { nowIso } from '../../shared/time.js';
import { extensionOf, readStoredFile, safeFilename, type IncomingFile, type StoredFile } from './files.js';
import { canAdminProject } from './policy.js';
import { getProject, updateProject, type ProjectView, type UpdateProjectInput } from './service.js';
import { findProject } from './find.js';

/** The reference's avatar rules: these image types, at most 200 KB. */
const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];
const AVATAR_MAX_BYTES = 200 * 1024;

const avatarPrefix = (projectId: number) => `projects/${projectId}/avatar/`;

/** What is wrong with an image given as an avatar (projects, topics). */
export function avatarErrors(file: IncomingFile): string[] {
  const errors: string[] = [];
  if (!AVATAR_EXTENSIONS.includes(extensionOf(file.filename))) {
    errors.push(`file format is not supported. Please try one of the following supported formats: ${AVATAR_EXTENSIONS.join(', ')}`);
  }
  if (file.size > AVATAR_MAX_BYTES) errors.push('is too big (should be at most 200 KB)');
  return errors;
}

/**
 * PUT /projects/:id: with an `avatar`, checks and stores it after the other fields (if any) are
 * applied; without one, the plain update.
 */
export async function updateProjectWithAvatar(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  input: UpdateProjectInput,
  avatar: IncomingFile | undefined,
): Promise<ProjectView> {
  if (!avatar) return updateProject(c, actor, idOrPath, input);
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  const errors = avatarErrors(avatar);
  if (errors.length) throw validation({ avatar: errors });
  if (Object.values(input).some((v) => v !== undefined)) await updateProject(c, actor, row.id, input);

  const filename = safeFilename(avatar.filename);
  await c.storage.deletePrefix(avatarPrefix(row.id));
  await c.storage.put(avatarPrefix(row.id) + filename, fs.createReadStream(avatar.path));
  await updateProjectRow(c.db, row.id, { avatar_path: filename, updated_at: nowIso() });
  return getProject(c, actor, row.id, { statistics: false, license: false });
}

/** GET /uploads/-/system/project/avatar/:id/:filename. */
export async function readAvatar(c: Container, actor: Actor | null, projectId: number, filename: string): Promise<StoredFile> {
  const { row } = await findProject(c, actor, projectId);
  if (!row.avatar_path || row.avatar_path !== filename) throw notFound();
  const file = await readStoredFile(c, avatarPrefix(row.id) + filename, filename, true);
  if (!file) throw notFound();
  return file;
}
