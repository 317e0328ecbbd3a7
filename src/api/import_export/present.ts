// Export and import statuses → the reference's entities.
import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { ExportStatusView } from '../../domain/import_export/export.js';
import type { ImportStatusView } from '../../domain/import_export/import.js';
import type { ProjectView } from '../../domain/projects/service.js';
import type { ExportStatusSchema, ImportStatusSchema } from './schemas.js';

function identity(v: ProjectView) {
  const p = v.row;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${v.namespaceFullName} / ${p.name}`,
    path: p.path,
    path_with_namespace: `${v.namespace.full_path}/${p.path}`,
    created_at: p.created_at,
  };
}

export function presentExportStatus(c: Container, s: ExportStatusView): Static<typeof ExportStatusSchema> {
  const base = c.config.externalUrl;
  const out: Static<typeof ExportStatusSchema> = { ...identity(s.project), export_status: s.status };
  if (s.status === 'finished') {
    out._links = {
      api_url: `${base}/api/v4/projects/${s.project.row.id}/export/download`,
      web_url: `${base}/${s.project.namespace.full_path}/${s.project.row.path}/download_export`,
    };
  }
  return out;
}

export function presentImportStatus(s: ImportStatusView): Static<typeof ImportStatusSchema> {
  const p = s.project.row;
  return {
    ...identity(s.project),
    import_status: p.import_status,
    import_type: p.import_type,
    correlation_id: s.correlationId,
    failed_relations: s.failures.map((f) => ({
      id: f.id,
      created_at: f.created_at,
      exception_class: f.exception_class,
      exception_message: null, // the reference never sends it
      source: f.source,
      relation_name: f.relation_key,
      line_number: f.relation_index,
    })),
    import_error: p.import_error,
  };
}
