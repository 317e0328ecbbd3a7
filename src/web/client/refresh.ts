// A page showing work in progress (an export, an import) marks it with data-refresh-seconds: the
// page reloads after that long, until the server stops marking it.
export function initRefresh(root: ParentNode): void {
  const el = root.querySelector<HTMLElement>('[data-refresh-seconds]');
  if (el) setTimeout(() => location.reload(), Number(el.dataset.refreshSeconds) * 1000);
}
