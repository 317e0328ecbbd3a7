// Forms and buttons that write through the REST API. Markup declares the call:
//   <form data-api="/projects/1/hooks" data-method="POST" data-then="reload">
//   <button data-api="/projects/1/hooks/2" data-method="DELETE" data-confirm="Delete this hook?">
// Field values: checkboxes are booleans (or, named `x[]`, a list of the checked values), fields
// marked data-type="number" are numbers, data-type="json" are parsed JSON, empty fields are left
// out (those marked data-send-empty are sent as "", which clears the value). `{name}` in data-api is replaced by the field `name` (then left out of the body). A form
// with data-body-field="payload" sends that one field's value as the whole body. A form with
// enctype="multipart/form-data" sends multipart (files), the only way the API takes an upload.
// data-then: reload (default; the reloaded page then says data-saved, else "Saved."), `redirect:<url>` (`{field}` in it is the answer's field),
// `redirect-field:<name>` (to a field of the answer, e.g. web_url) or `show` (fills
// [data-field=name] elements inside the form's [data-result] with the answer's fields).
// A list of objects (a pipeline's variables): `<fieldset data-list="variables">` holds rows
// `[data-item]` whose fields carry data-item-field="key" (no name); rows with an empty first field
// are left out; a `button[data-add-item]` inside adds a blank copy of the last row.
import { apiFetch, errorText, type Answer } from './api.js';

function formBody(form: HTMLFormElement, skip: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const el of Array.from(form.elements) as HTMLInputElement[]) {
    if (!el.name || el.disabled || el.type === 'submit' || el.type === 'button' || skip.has(el.name)) continue;
    if (el.name.endsWith('[]')) {
      const key = el.name.slice(0, -2);
      const list = (out[key] as unknown[] | undefined) ?? [];
      if (el.type !== 'checkbox' || el.checked) list.push(el.value);
      out[key] = list;
    } else if (el.type === 'checkbox') {
      out[el.name] = el.checked;
    } else if (el.type === 'radio') {
      if (el.checked) out[el.name] = el.value;
    } else if (el.type === 'file') {
      if (el.files?.[0]) out[el.name] = el.files[0];
    } else if (el.value !== '' || el.dataset.sendEmpty !== undefined) {
      out[el.name] = el.dataset.type === 'number' ? Number(el.value) : el.dataset.type === 'json' ? JSON.parse(el.value) : el.value;
    }
  }
  return out;
}

/** The form's call: its path (with `{field}`s filled in) and its body, JSON or multipart. */
function formCall(form: HTMLFormElement): { path: string; body: unknown } {
  const used = new Set<string>();
  const path = form.dataset.api!.replace(/\{(\w+)\}/g, (_, name: string) => {
    used.add(name);
    const el = form.elements.namedItem(name) as HTMLInputElement | null;
    return encodeURIComponent(el?.value ?? '');
  });
  const fields = formBody(form, used);
  for (const list of Array.from(form.querySelectorAll<HTMLElement>('[data-list]'))) {
    const items = Array.from(list.querySelectorAll<HTMLElement>('[data-item]')).map((row) =>
      Object.fromEntries(Array.from(row.querySelectorAll<HTMLInputElement>('[data-item-field]')).map((el) => [el.dataset.itemField!, el.value])),
    );
    const first = (o: Record<string, string>): string => Object.values(o)[0] ?? '';
    const kept = items.filter((o) => first(o) !== '');
    if (kept.length) fields[list.dataset.list!] = kept;
  }
  if (form.dataset.bodyField) return { path, body: fields[form.dataset.bodyField] ?? {} };
  if (form.enctype !== 'multipart/form-data') return { path, body: fields };
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v instanceof File ? v : String(v));
  return { path, body: data };
}

/** `{name}` in a redirect target → the answer's field (slashes of a path kept). */
const fillFrom = (target: string, answer: Answer): string => target.replace(/\{(\w+)\}/g, (_, k: string) => encodeURI(String(answer.body?.[k] ?? '')));

function messageBox(scope: Element): HTMLElement {
  let box = scope.querySelector<HTMLElement>('.form-message');
  if (!box) {
    box = document.createElement('p');
    box.className = 'form-message';
    box.setAttribute('role', 'alert');
    scope.appendChild(box);
  }
  return box;
}

const FLASH_KEY = 'anvil-flash';

/** What a write that reloads the page says afterwards: data-saved, else "Saved." ("Deleted." for a DELETE). */
function remember(el: HTMLElement): void {
  const method = (el.dataset.method ?? 'POST').toUpperCase();
  sessionStorage.setItem(FLASH_KEY, el.dataset.saved ?? (method === 'DELETE' ? 'Deleted.' : 'Saved.'));
}

/** The confirmation left by the write before the reload, shown once at the top of the page. */
function showFlash(): void {
  const text = sessionStorage.getItem(FLASH_KEY);
  if (text === null) return;
  sessionStorage.removeItem(FLASH_KEY);
  const main = document.querySelector('main');
  if (!main) return;
  const p = document.createElement('p');
  p.className = 'flash flash-ok';
  p.setAttribute('role', 'status');
  p.textContent = text;
  main.prepend(p);
}

function after(el: HTMLElement, answer: Answer, scope: Element): void {
  const then = el.dataset.then ?? 'reload';
  if (then === 'reload') {
    remember(el);
    return location.reload();
  }
  if (el.dataset.saved !== undefined && then.startsWith('redirect')) remember(el);
  if (then.startsWith('redirect:')) return void (location.href = fillFrom(then.slice('redirect:'.length), answer));
  if (then.startsWith('redirect-field:')) return void (location.href = answer.body?.[then.slice('redirect-field:'.length)]);
  if (then === 'show') {
    const result = scope.querySelector<HTMLElement>('[data-result]');
    if (!result) return;
    result.querySelectorAll<HTMLElement>('[data-field]').forEach((f) => {
      const v = answer.body?.[f.dataset.field!];
      if (f instanceof HTMLInputElement) f.value = v === undefined || v === null ? '' : String(v);
      else f.textContent = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    });
    result.hidden = false;
  }
}

/** Makes the call `request()` describes (it may throw: a JSON field that does not parse) and shows the outcome. */
async function call(el: HTMLElement, scope: Element, request: () => { path: string; body: unknown }): Promise<void> {
  const box = messageBox(scope);
  box.textContent = '';
  box.classList.remove('error');
  const method = (el.dataset.method ?? 'POST').toUpperCase();
  let r: { path: string; body: unknown };
  try {
    r = request();
  } catch (e) {
    box.textContent = e instanceof Error ? e.message : String(e);
    box.classList.add('error');
    return;
  }
  const answer = await apiFetch(method, r.path, r.body);
  if (!answer.ok) {
    box.textContent = errorText(answer);
    box.classList.add('error');
    return;
  }
  after(el, answer, scope);
}

export function initForms(root: ParentNode): void {
  showFlash();
  root.querySelectorAll<HTMLFormElement>('form[data-api]').forEach((form) => {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (form.dataset.confirm && !confirm(form.dataset.confirm)) return;
      const submit = form.querySelector<HTMLButtonElement>('[type=submit]');
      if (submit) submit.disabled = true;
      void call(form, form, () => formCall(form)).finally(() => {
        if (submit) submit.disabled = false;
      });
    });
  });
  root.querySelectorAll<HTMLButtonElement>('button[data-api]').forEach((button) => {
    button.addEventListener('click', () => {
      if (button.dataset.confirm && !confirm(button.dataset.confirm)) return;
      const body = button.dataset.body ? JSON.parse(button.dataset.body) : undefined;
      button.disabled = true;
      void call(button, button.closest('[data-action-scope]') ?? button.parentElement!, () => ({ path: button.dataset.api!, body })).finally(() => {
        button.disabled = false;
      });
    });
  });
  root.querySelectorAll<HTMLButtonElement>('button[data-add-item]').forEach((button) => {
    button.addEventListener('click', () => {
      const rows = button.closest('[data-list]')?.querySelectorAll<HTMLElement>('[data-item]');
      const last = rows?.[rows.length - 1];
      if (!last) return;
      const copy = last.cloneNode(true) as HTMLElement;
      // each copy's fields keep a label of their own: ids and label targets get the row's number
      const n = rows!.length;
      copy.querySelectorAll<HTMLElement>('[id]').forEach((el) => (el.id = el.id.replace(/-\d+$/, `-${n}`)));
      copy.querySelectorAll<HTMLLabelElement>('label[for]').forEach((el) => (el.htmlFor = el.htmlFor.replace(/-\d+$/, `-${n}`)));
      copy.querySelectorAll<HTMLInputElement>('input').forEach((el) => (el.value = ''));
      last.after(copy);
      copy.querySelector<HTMLInputElement>('input')?.focus();
    });
  });
  // Copy buttons: data-copy names the id of the element whose value or text is copied.
  root.querySelectorAll<HTMLButtonElement>('button[data-copy]').forEach((button) => {
    button.addEventListener('click', () => {
      const target = document.getElementById(button.dataset.copy!);
      const text = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement ? target.value : (target?.textContent ?? '');
      void navigator.clipboard?.writeText(text).then(() => {
        button.textContent = 'Copied';
      });
    });
  });
}
