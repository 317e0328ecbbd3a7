// Drives export, download, import and import status with @gitbeaker/rest. Prints one JSON line.
import { Gitlab } from '@gitbeaker/rest';

const { ANVIL_URL: host, ANVIL_TOKEN: token, PROJECT_ID, SUFFIX: suffix } = process.env;
const api = new Gitlab({ host, token });
const projectId = Number(PROJECT_ID);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const scheduled = await api.ProjectImportExports.scheduleExport(projectId, undefined, { description: 'from gitbeaker' });
let status = await api.ProjectImportExports.showExportStatus(projectId);
for (const end = Date.now() + 60_000; status.export_status !== 'finished' && Date.now() < end; ) {
  await sleep(200);
  status = await api.ProjectImportExports.showExportStatus(projectId);
}
const blob = await api.ProjectImportExports.download(projectId);
const bytes = new Uint8Array(await blob.arrayBuffer());

const started = await api.ProjectImportExports.import({ content: blob, filename: 'export.tar.gz' }, `gb-import-${suffix}`);
let imp = await api.ProjectImportExports.showImportStatus(started.id);
for (const end = Date.now() + 60_000; !['finished', 'failed'].includes(imp.import_status) && Date.now() < end; ) {
  await sleep(200);
  imp = await api.ProjectImportExports.showImportStatus(started.id);
}
const branches = await api.Branches.all(started.id);
console.log(JSON.stringify({
  scheduled: scheduled.message,
  export_status: status.export_status,
  links: Object.keys(status._links ?? {}).sort(),
  archive_starts_gzip: bytes[0] === 0x1f && bytes[1] === 0x8b,
  first_import_status: started.import_status,
  import_status: imp.import_status,
  import_error: imp.import_error,
  path: imp.path,
  branches: branches.map((b) => b.name).sort(),
}));
