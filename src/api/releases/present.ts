// Releases and their links → the reference's Release and Releases::Link shapes.
import type { Container } from '../../domain/context.js';
import type { LinkView, ReleaseView } from '../../domain/releases/service.js';
import { directAssetUrl, isExternalLink, releaseWebUrl, sourceUrls } from '../../domain/releases/urls.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { ReleaseLinkRow } from '../../db/repos/releases.js';
import { nowIso } from '../../shared/time.js';
import { presentCommit } from '../repository/present.js';
import { presentUserBasic } from '../users/present.js';

const presentLinkOf = (c: Container, project: ProjectRow, tag: string, l: ReleaseLinkRow) => ({
  id: l.id,
  name: l.name,
  url: l.url,
  direct_asset_url: directAssetUrl(c, project, tag, l),
  external: isExternalLink(c, project, l),
  link_type: l.link_type,
});

export const presentReleaseLink = (c: Container, v: LinkView) => presentLinkOf(c, v.project, v.release.tag, v.link);

export function presentRelease(c: Container, v: ReleaseView) {
  const r = v.row;
  const p = v.project;
  const sources = v.downloadCode ? sourceUrls(c, p, r.tag) : null;
  const self = releaseWebUrl(c, p, r.tag);
  return {
    name: r.name,
    ...(v.downloadCode ? { tag_name: r.tag } : {}),
    description: r.description,
    created_at: r.created_at,
    released_at: r.released_at,
    ...(v.author ? { author: presentUserBasic(c, v.author) } : {}),
    ...(v.downloadCode ? { commit: v.commit ? presentCommit(c, { commit: v.commit, project: p }) : null } : {}),
    upcoming_release: r.released_at > nowIso(),
    ...(v.downloadCode && v.commit ? { commit_path: `/${p.full_path}/-/commit/${v.commit.id}` } : {}),
    ...(v.downloadCode ? { tag_path: `/${p.full_path}/-/tags/${encodeURIComponent(r.tag)}` } : {}),
    assets: {
      count: v.links.length + (sources?.length ?? 0),
      ...(sources ? { sources } : {}),
      links: v.links.map((l) => presentLinkOf(c, p, r.tag, l)),
    },
    ...(v.downloadCode ? { evidences: [] } : {}),
    _links: { self, ...(v.canEdit ? { edit_url: `${self}/edit` } : {}) },
  };
}
