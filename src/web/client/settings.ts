// Settings pages' helpers: a badge's preview as the API renders it (GET …/badges/render), and the
// user search that fills a member form's user list (the web's /-/autocomplete/users.json, which
// finds users from the first letter).
import { apiFetch } from './api.js';

function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(t);
    t = setTimeout(fn, ms);
  };
}

function initBadgePreview(form: HTMLFormElement): void {
  const preview = form.querySelector<HTMLElement>('[data-preview]');
  const link = form.elements.namedItem('link_url') as HTMLInputElement | null;
  const image = form.elements.namedItem('image_url') as HTMLInputElement | null;
  if (!preview || !link || !image) return;
  const update = debounce(() => {
    if (!link.value || !image.value) return void (preview.hidden = true);
    const q = new URLSearchParams({ link_url: link.value, image_url: image.value });
    void apiFetch('GET', `${form.dataset.badgePreview}?${q}`).then((a) => {
      if (!a.ok) return void (preview.hidden = true);
      preview.querySelector('a')!.href = a.body.rendered_link_url;
      preview.querySelector('img')!.src = a.body.rendered_image_url;
      preview.hidden = false;
    });
  }, 250);
  link.addEventListener('input', update);
  image.addEventListener('input', update);
}

function initUserSearch(input: HTMLInputElement): void {
  const select = document.getElementById(input.dataset.userSearch!) as HTMLSelectElement | null;
  if (!select) return;
  const update = debounce(() => {
    const term = input.value.trim();
    if (term.length < 1) return;
    void fetch(`/-/autocomplete/users.json?search=${encodeURIComponent(term)}`, { credentials: 'same-origin' })
      .then((r) => (r.ok ? r.json() : null))
      .then((users: { id: number; username: string; name: string }[] | null) => {
        if (!Array.isArray(users)) return;
        select.replaceChildren(...users.map((u) => new Option(`${u.name} (@${u.username})`, String(u.id))));
        if (users.length === 0) select.append(new Option('No users found', ''));
      });
  }, 250);
  input.addEventListener('input', update);
}

export function initSettings(root: ParentNode): void {
  root.querySelectorAll<HTMLFormElement>('form[data-badge-preview]').forEach(initBadgePreview);
  root.querySelectorAll<HTMLInputElement>('input[data-user-search]').forEach(initUserSearch);
}
