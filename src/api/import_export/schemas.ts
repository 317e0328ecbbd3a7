// Schemas of project export and import (the reference's ProjectExportStatus, ProjectImportStatus
// and ProjectImportFailedRelation entities).
import { Type as T } from '@sinclair/typebox';
import { ProjectIdentity } from '../projects/schemas.js';
import { IdOrPath, Nullable, Timestamp } from '../schemas.js';

const identity = ProjectIdentity.properties;

export const ExportStatusSchema = T.Object({
  ...identity,
  export_status: T.String(),
  _links: T.Optional(T.Object({ api_url: T.String(), web_url: T.String() })),
});

export const FailedRelation = T.Object({
  id: T.Integer(),
  created_at: Timestamp,
  exception_class: T.String(),
  exception_message: T.Null(),
  source: T.String(),
  relation_name: Nullable(T.String()),
  line_number: Nullable(T.Integer()),
});

export const ImportStatusSchema = T.Object({
  ...identity,
  import_status: T.String(),
  import_type: Nullable(T.String()),
  correlation_id: Nullable(T.String()),
  failed_relations: T.Array(FailedRelation),
  import_error: Nullable(T.String()),
});

export const Accepted = T.Object({ message: T.String() });

export const ExportParams = T.Object({
  id: IdOrPath,
  description: T.Optional(T.String()),
  upload: T.Optional(T.Object({ url: T.String(), http_method: T.Optional(T.String({ enum: ['PUT', 'POST'] })) })),
});

/** What every import request names: where the project goes and what overrides the archive. */
export const ImportTarget = {
  path: T.String({ minLength: 1 }),
  namespace: T.Optional(IdOrPath),
  name: T.Optional(T.String()),
  overwrite: T.Optional(T.Boolean({ default: false })),
  override_params: T.Optional(T.Object({})),
};

export const ImportParams = T.Object({ ...ImportTarget, file: T.Any() });

export const ObjstoreImportParams = T.Object({
  ...ImportTarget,
  region: T.String({ minLength: 1 }),
  bucket_name: T.String({ minLength: 1 }),
  file_key: T.String({ minLength: 1 }),
  access_key_id: T.String({ minLength: 1 }),
  secret_access_key: T.String({ minLength: 1 }),
});

export const RemoteImportParams = T.Object({ ...ImportTarget, url: T.String({ minLength: 1 }) });
