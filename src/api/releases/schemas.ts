// The Release resource (the reference's Entities::Release, Releases::Link, Releases::Source and
// Releases::Evidence). Fields a reader without download_code may not see (the tag, its commit,
// the source archives) are left out for them, as the reference's `if:` exposures do.
import { Type as T } from '@sinclair/typebox';
import { Commit } from '../repository/schemas.js';
import { Nullable, Timestamp } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

export const LinkTypeValues = ['other', 'runbook', 'image', 'package'] as const;

export const ReleaseLink = T.Object({
  id: T.Integer(),
  name: T.String(),
  url: T.String(),
  direct_asset_url: T.String(),
  external: T.Boolean(),
  link_type: T.String(),
});

const Source = T.Object({ format: T.String(), url: T.String() });
const Evidence = T.Object({ sha: T.String(), filepath: T.String(), collected_at: Timestamp });

export const Release = T.Object({
  name: Nullable(T.String()),
  tag_name: T.Optional(T.String()),
  description: Nullable(T.String()),
  created_at: Timestamp,
  released_at: Timestamp,
  author: T.Optional(UserBasic),
  commit: T.Optional(Nullable(Commit)),
  upcoming_release: T.Boolean(),
  commit_path: T.Optional(T.String()),
  tag_path: T.Optional(T.String()),
  assets: T.Object({
    count: T.Integer(),
    sources: T.Optional(T.Array(Source)),
    links: T.Array(ReleaseLink),
  }),
  evidences: T.Optional(T.Array(Evidence)),
  _links: T.Object({
    self: T.String(),
    edit_url: T.Optional(T.String()),
  }),
});
