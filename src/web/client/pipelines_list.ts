// The pipelines list follows its unfinished pipelines: every 3 s it reads each one (with all its
// jobs and bridges, for the stage icons) and re-renders its row with the server's view, until none is
// left moving.
import { allPages, apiFetch } from './api.js';
import { startTicker } from './ticker.js';
import { localTimes } from './times.js';
import { isPipelineActive, pipelineRow } from '../views/pipelines_list.js';

const POLL_MS = 3000;

export function initPipelinesList(root: ParentNode): void {
  const table = root.querySelector<HTMLElement>('table[data-pipelines-live]');
  if (!table) return;
  const at = `/projects/${table.dataset.projectId}/pipelines`;
  const moving = (): HTMLElement[] => Array.from(table.querySelectorAll<HTMLElement>('tr[data-pipeline-id]')).filter((tr) => isPipelineActive(tr.dataset.status ?? ''));
  const tick = async (): Promise<void> => {
    await Promise.all(
      moving().map(async (tr) => {
        const id = tr.dataset.pipelineId;
        const [p, jobs, bridges] = await Promise.all([apiFetch('GET', `${at}/${id}`), allPages(`${at}/${id}/jobs`), allPages(`${at}/${id}/bridges`)]);
        // one that cannot be read any more (deleted) is not asked for again
        if (!p.ok) return void (tr.dataset.status = '');
        tr.outerHTML = pipelineRow(p.body, jobs, bridges).text;
      }),
    );
    localTimes(root);
    startTicker(root);
    if (moving().length > 0) setTimeout(() => void tick(), POLL_MS);
  };
  if (moving().length > 0) setTimeout(() => void tick(), POLL_MS);
}
