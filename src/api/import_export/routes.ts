// Project export and import.
import { Type as T } from '@sinclair/typebox';
import { missing } from '../../domain/errors.js';
import { downloadExport, getExportStatus, requestExport } from '../../domain/import_export/export.js';
import { checkImportAllowed, getImportStatus, requestImport, requestObjstoreImport, requestRemoteImport } from '../../domain/import_export/import.js';
import { FileBody, route } from '../../http/route.js';
import { fileParam } from '../projects/uploads_routes.js';
import { ProjectIdParam } from '../projects/resources_schemas.js';
import { presentExportStatus, presentImportStatus } from './present.js';
import { Accepted, ExportParams, ExportStatusSchema, ImportParams, ImportStatusSchema, ObjstoreImportParams, RemoteImportParams } from './schemas.js';

const TAG = 'project_import_export';

export const importExportRoutes = [
  route({
    method: 'POST',
    path: '/projects/:id/export',
    tag: TAG,
    summary: 'Start a project export',
    params: ExportParams,
    response: Accepted,
    status: 202,
    handler: async ({ c, actor, input }) => {
      await requestExport(c, actor, input.id, { description: input.description, upload: input.upload });
      return { message: '202 Accepted' };
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/export',
    tag: TAG,
    summary: 'The export status of a project',
    params: T.Object(ProjectIdParam),
    response: ExportStatusSchema,
    handler: async ({ c, actor, input }) => presentExportStatus(c, await getExportStatus(c, actor, input.id)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/export/download',
    tag: TAG,
    summary: 'Download the finished export archive',
    params: T.Object(ProjectIdParam),
    handler: async ({ c, actor, input }) => {
      const d = await downloadExport(c, actor, input.id);
      return new FileBody(d.stream, 'application/gzip', d.size, {
        'content-disposition': `attachment; filename="${d.filename}"; filename*=UTF-8''${encodeURIComponent(d.filename)}`,
      });
    },
  }),
  route({
    method: 'POST',
    path: '/projects/import',
    tag: TAG,
    summary: 'Import a project from an export archive',
    params: ImportParams,
    response: ImportStatusSchema,
    handler: async ({ c, actor, input }) => {
      await checkImportAllowed(c, actor);
      const file = fileParam('file', input.file);
      if (!file) throw missing('file');
      const { file: _f, ...rest } = input;
      return presentImportStatus(await requestImport(c, actor, rest, { file }));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/remote-import',
    tag: TAG,
    summary: 'Import a project from an archive at a URL',
    params: RemoteImportParams,
    response: ImportStatusSchema,
    handler: async ({ c, actor, input }) => {
      await checkImportAllowed(c, actor);
      const { url, ...target } = input;
      return presentImportStatus(await requestRemoteImport(c, actor, target, url));
    },
  }),
  // The spec's path and the one real clients post to (python-gitlab's remote_import_s3).
  ...['/projects/remote-import-objstore', '/projects/remote-import-s3'].map((p) =>
    route({
      method: 'POST',
      path: p,
      tag: TAG,
      summary: 'Import a project from an archive in an S3-compatible bucket',
      params: ObjstoreImportParams,
      response: ImportStatusSchema,
      handler: async ({ c, actor, input }) => {
        await checkImportAllowed(c, actor, { objstore: true });
        const { region, bucket_name, file_key, access_key_id, secret_access_key, ...target } = input;
        return presentImportStatus(await requestObjstoreImport(c, actor, target, { region, bucket_name, file_key, access_key_id, secret_access_key }));
      },
    }),
  ),
  route({
    method: 'GET',
    path: '/projects/:id/import',
    tag: TAG,
    summary: 'The import status of a project',
    params: T.Object(ProjectIdParam),
    response: ImportStatusSchema,
    handler: async ({ c, actor, input }) => presentImportStatus(await getImportStatus(c, actor, input.id)),
  }),
];
