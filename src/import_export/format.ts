// The reference's export archive layout (lib/gitlab/import_export.rb): file names, the format
// version and the download name. Shared by the writer, the reader and the domain.

/** The archive format version this code writes and the only one it reads. */
export const EXPORT_VERSION = '0.2.4';

export const FILES = {
  version: 'VERSION',
  appVersion: 'GITLAB_VERSION',
  appRevision: 'GITLAB_REVISION',
  projectTree: 'tree/project.json',
  relationsDir: 'tree/project',
  bundle: 'project.bundle',
  uploadsDir: 'uploads',
  avatarDir: 'avatar',
} as const;

export const relationFile = (relation: string) => `${FILES.relationsDir}/${relation}.ndjson`;

export class VersionError extends Error {}

/**
 * The reference's version check: the first line of VERSION must be the same version as ours
 * (compared as major.minor.patch). It never reads the two application version files.
 */
export function checkVersion(text: string | null): void {
  const first = text === null ? '' : (text.split('\n')[0] ?? '').trim();
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(first);
  if (!m || first.includes('\0')) throw new VersionError('Incorrect VERSION format');
  if (`${Number(m[1])}.${Number(m[2])}.${Number(m[3])}` !== EXPORT_VERSION) {
    throw new VersionError(`Import version mismatch: Required ${EXPORT_VERSION} but was ${first}`);
  }
}

/**
 * The download name the reference gives an export: the time (`%Y-%m-%d_%H-%M-%3N`) and the
 * project's full path with `/` as `_`, cut to 51 characters, then `_export.tar.gz`.
 */
export function exportFilename(fullPath: string, at: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${at.getUTCFullYear()}-${p(at.getUTCMonth() + 1)}-${p(at.getUTCDate())}_${p(at.getUTCHours())}-${p(at.getUTCMinutes())}-${p(at.getUTCMilliseconds(), 3)}`;
  return `${`${stamp}_${fullPath.replaceAll('/', '_')}`.slice(0, 51)}_export.tar.gz`;
}
