// A badge's fields (name, link, image) in the add and edit forms, and its rendered image: the same
// for a project's badges and a group's.
import { html, type Html } from '../html.js';

export function badgeFields(prefix: string, b: { name?: string | null; link_url?: string; image_url?: string } = {}): Html {
  return html`<label><span>Name</span><input type="text" name="name" id="${prefix}-name" value="${b.name ?? ''}"></label>
    <label><span>Link</span><input type="text" name="link_url" id="${prefix}-link" required value="${b.link_url ?? ''}" placeholder="https://example.com/%{project_path}"></label>
    <label><span>Badge image URL</span><input type="text" name="image_url" id="${prefix}-image" required value="${b.image_url ?? ''}" placeholder="https://example.com/%{project_path}/badge.svg"></label>`;
}

export const badgeImage = (b: any): Html =>
  html`<a href="${b.rendered_link_url}"><img class="badge-image" src="${b.rendered_image_url}" alt="${b.name || 'Badge'}"></a>`;
