import type { BadgeView } from '../../domain/badges/service.js';

export const presentBadge = (v: BadgeView) => ({
  name: v.row.name,
  link_url: v.row.link_url,
  image_url: v.row.image_url,
  rendered_link_url: v.rendered_link_url,
  rendered_image_url: v.rendered_image_url,
  id: v.row.id,
  kind: v.kind,
});
