// Forms and buttons that write through the REST API. Markup declares the call:
//   <form data-api="/projects/1/hooks" data-method="POST" data-then="reload">
//   <button data-api="/projects/1/hooks/2" data-method="DELETE" data-confirm="Delete this hook?">
// Field values: checkboxes are booleans (or, named `x[]`, a list of the checked values), fields
// marked data-type="number" are numbers, empty fields are left out. data-then: reload (default),
// `redirect:<url>`, `redirect-field:<name>` (to a field of the answer, e.g. web_url) or `show`
// (fills [data-field=name] elements inside the form's [data-result] with the answer's fields).
import { apiFetch, errorText, type Answer } from './api.js';

function formBody(form: HTMLFormElement): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const el of Array.from(form.elements) as HTMLInputElement[]) {
    if (!el.name || el.disabled || el.type === 'submit' || el.type === 'button') continue;
    if (el.name.endsWith('[]')) {
      const key = el.name.slice(0, -2);
      const list = (out[key] as unknown[] | undefined) ?? [];
      if (el.type !== 'checkbox' || el.checked) list.push(el.value);
      out[key] = list;
    } else if (el.type === 'checkbox') {
      out[el.name] = el.checked;
    } else if (el.type === 'radio') {
      if (el.checked) out[el.name] = el.value;
    } else if (el.value !== '') {
      out[el.name] = el.dataset.type === 'number' ? Number(el.value) : el.value;
    }
  }
  return out;
}

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

function after(el: HTMLElement, answer: Answer, scope: Element): void {
  const then = el.dataset.then ?? 'reload';
  if (then === 'reload') return location.reload();
  if (then.startsWith('redirect:')) return void (location.href = then.slice('redirect:'.length));
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

async function call(el: HTMLElement, scope: Element, body: unknown): Promise<void> {
  const box = messageBox(scope);
  box.textContent = '';
  box.classList.remove('error');
  const method = (el.dataset.method ?? 'POST').toUpperCase();
  const answer = await apiFetch(method, el.dataset.api!, body);
  if (!answer.ok) {
    box.textContent = errorText(answer);
    box.classList.add('error');
    return;
  }
  after(el, answer, scope);
}

export function initForms(root: ParentNode): void {
  root.querySelectorAll<HTMLFormElement>('form[data-api]').forEach((form) => {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (form.dataset.confirm && !confirm(form.dataset.confirm)) return;
      const submit = form.querySelector<HTMLButtonElement>('[type=submit]');
      if (submit) submit.disabled = true;
      void call(form, form, formBody(form)).finally(() => {
        if (submit) submit.disabled = false;
      });
    });
  });
  root.querySelectorAll<HTMLButtonElement>('button[data-api]').forEach((button) => {
    button.addEventListener('click', () => {
      if (button.dataset.confirm && !confirm(button.dataset.confirm)) return;
      const body = button.dataset.body ? JSON.parse(button.dataset.body) : undefined;
      button.disabled = true;
      void call(button, button.closest('[data-action-scope]') ?? button.parentElement!, body).finally(() => {
        button.disabled = false;
      });
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
