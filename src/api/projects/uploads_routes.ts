// Project uploads and avatars: receiving files and serving them back (outside /api/v4, at the
// paths the reference's web app serves them on).
import { Type as T } from '@sinclair/typebox';
import { invalidParams, missing } from '../../domain/errors.js';
import { readAvatar } from '../../domain/projects/avatar.js';
import type { StoredFile } from '../../domain/projects/files.js';
import { readUpload, uploadFile } from '../../domain/projects/uploads.js';
import { UploadedFile } from '../../http/content.js';
import { FileBody, route, type ApiRoute } from '../../http/route.js';
import { ProjectIdParam, ProjectUpload } from './resources_schemas.js';

const TAG = 'projects';

/** A file parameter: an uploaded file, or absent; anything else (a plain string) is invalid. */
export function fileParam(name: string, v: unknown): UploadedFile | undefined {
  if (v === undefined) return undefined;
  if (v instanceof UploadedFile) return v;
  throw invalidParams(`${name} is invalid`);
}

/** A stored file as a streamed answer. */
export const fileBody = (f: StoredFile) =>
  new FileBody(f.stream, f.contentType, f.size, {
    'content-disposition': `${f.inline ? 'inline' : 'attachment'}; filename="${f.filename}"`,
    'x-content-type-options': 'nosniff',
  });

/** Namespaces nest up to 20 deep (the reference's limit), so the project path has 2 to 21 segments. */
const MAX_PATH_SEGMENTS = 21;

const uploadServingRoutes: ApiRoute<any>[] = [];
for (let n = 2; n <= MAX_PATH_SEGMENTS; n++) {
  const names = Array.from({ length: n }, (_, i) => `p${i}`);
  uploadServingRoutes.push(
    route({
      method: 'GET',
      path: `/${names.map((s) => `:${s}`).join('/')}/uploads/:secret/:filename`,
      outsideApi: true,
      tag: TAG,
      summary: `A project upload (project path of ${n} segments)`,
      auth: 'optional',
      params: T.Object({ ...Object.fromEntries(names.map((s) => [s, T.String()])), secret: T.String(), filename: T.String() }),
      handler: async ({ c, actor, input }) => {
        const i = input as Record<string, string>;
        return fileBody(await readUpload(c, actor, names.map((s) => i[s]).join('/'), i.secret, i.filename));
      },
    }),
  );
}

export const projectUploadRoutes = [
  route({
    method: 'POST',
    path: '/projects/:id/uploads',
    tag: TAG,
    summary: 'Upload a file to a project',
    params: T.Object({ ...ProjectIdParam, file: T.Any() }),
    response: ProjectUpload,
    handler: async ({ c, actor, input }) => {
      const file = fileParam('file', input.file);
      if (!file) throw missing('file');
      return uploadFile(c, actor, input.id, file);
    },
  }),
  route({
    method: 'GET',
    path: '/uploads/-/system/project/avatar/:id/:filename',
    outsideApi: true,
    tag: TAG,
    summary: "A project's avatar image",
    auth: 'optional',
    params: T.Object({ id: T.Integer(), filename: T.String() }),
    handler: async ({ c, actor, input }) => fileBody(await readAvatar(c, actor, input.id, input.filename)),
  }),
  ...uploadServingRoutes,
];
