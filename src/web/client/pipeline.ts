// A running pipeline's page follows it: every 2 s it reads the pipeline, its jobs and bridges from
// the REST API and re-renders them with the view the server used, until the pipeline finishes.
// The jobs' needs (the graph's edges) are a pipeline's plan and do not change while it runs: they
// are read once, on the first poll (again on the next while that read fails).
import { apiFetch } from './api.js';
import { isFinished, pipelineLive } from '../views/pipeline_graph.js';

const POLL_MS = 2000;

/** Every page of a list, as the server reads it. */
async function allPages(path: string): Promise<any[] | null> {
  const out: any[] = [];
  for (let page = 1; page <= 50; page++) {
    const a = await apiFetch('GET', `${path}?per_page=100&page=${page}`);
    if (!a.ok || !Array.isArray(a.body)) return null;
    out.push(...a.body);
    if (a.body.length < 100) break;
  }
  return out;
}

export function initPipeline(root: ParentNode): void {
  const live = root.querySelector<HTMLElement>('[data-pipeline-live]');
  if (!live || isFinished(live.dataset.status)) return;
  const at = `/projects/${live.dataset.projectId}/pipelines/${live.dataset.pipelineId}`;
  let needs: any[] | null = null;
  const tick = async (): Promise<void> => {
    const [p, jobs, bridges, readNeeds] = await Promise.all([
      apiFetch('GET', at),
      allPages(`${at}/jobs`),
      allPages(`${at}/bridges`),
      needs ? Promise.resolve(needs) : allPages(`${at}/needs`),
    ]);
    needs = readNeeds;
    if (p.ok && jobs && bridges) {
      // Keep the reader's place: the graph's horizontal scroll survives the re-render.
      const scroller = live.querySelector<HTMLElement>('.graph-scroll');
      const left = scroller?.scrollLeft ?? 0;
      live.innerHTML = pipelineLive({ pipeline: p.body, jobs, bridges, needs }).text;
      live.dataset.status = p.body.status;
      const again = live.querySelector<HTMLElement>('.graph-scroll');
      if (again) again.scrollLeft = left;
      if (isFinished(p.body.status)) {
        const note = root.querySelector<HTMLElement>('[data-live-note]');
        if (note) note.textContent = '';
        root.querySelectorAll('[data-while-active]').forEach((el) => el.remove());
        return;
      }
    }
    setTimeout(() => void tick(), POLL_MS);
  };
  setTimeout(() => void tick(), POLL_MS);
}
