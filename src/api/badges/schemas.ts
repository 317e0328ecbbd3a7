// The Badge resource (spec "Badge"; the reference's Entities::Badge and BasicBadgeDetails).
import { Type as T } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';

export const Badge = T.Object({
  name: Nullable(T.String()),
  link_url: T.String(),
  image_url: T.String(),
  rendered_link_url: T.String(),
  rendered_image_url: T.String(),
  id: T.Integer(),
  kind: T.Union([T.Literal('project'), T.Literal('group')]),
});

/** GET …/badges/render: the URLs as given and as rendered. */
export const RenderedBadge = T.Object({
  link_url: T.String(),
  image_url: T.String(),
  rendered_link_url: T.String(),
  rendered_image_url: T.String(),
});
