// The addresses of a release and its assets, as the reference builds them (its ReleasePresenter,
// Releases::Source and Releases::LinkPresenter): one place for the API, the hooks and the pages.
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { ReleaseLinkRow } from '../../db/repos/releases.js';

/** The source archive formats a release offers, in the reference's order. */
export const SOURCE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

export const projectWebUrl = (c: Container, p: Pick<ProjectRow, 'full_path'>): string => `${c.config.externalUrl}/${p.full_path}`;

/** A tag in a path segment (`/` kept, as Rails' route helpers keep it in a glob). */
const tagSegment = (tag: string): string => tag.split('/').map(encodeURIComponent).join('/');

export const releaseWebUrl = (c: Container, p: Pick<ProjectRow, 'full_path'>, tag: string): string => `${projectWebUrl(c, p)}/-/releases/${tagSegment(tag)}`;

/** The archives of the tag's tree: `{project}/-/archive/{tag}/{path}-{tag with / as -}.{format}`. */
export function sourceUrls(c: Container, p: Pick<ProjectRow, 'full_path' | 'path'>, tag: string): Array<{ format: string; url: string }> {
  const base = `${projectWebUrl(c, p)}/-/archive/${tagSegment(tag)}/${p.path}-${tag.replace(/\//g, '-')}`;
  return SOURCE_FORMATS.map((format) => ({ format, url: `${base}.${format}` }));
}

/** A link's permanent address when it has a file path, else its own URL. */
export const directAssetUrl = (c: Container, p: Pick<ProjectRow, 'full_path'>, tag: string, l: Pick<ReleaseLinkRow, 'filepath' | 'url'>): string =>
  l.filepath ? `${releaseWebUrl(c, p, tag)}/downloads/${l.filepath.replace(/^\/+/, '')}` : l.url;

/** A link outside the project (the reference's `external`: its URL does not start with the project's address). */
export const isExternalLink = (c: Container, p: Pick<ProjectRow, 'full_path'>, l: Pick<ReleaseLinkRow, 'url'>): boolean => !l.url.startsWith(projectWebUrl(c, p));
