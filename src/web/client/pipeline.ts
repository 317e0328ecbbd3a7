// A running pipeline's page follows it: every 2 s it reads the pipeline, its jobs and bridges from
// the REST API and re-renders them with the view the server used, until the pipeline finishes.
// The jobs' needs (the graph's edges) are a pipeline's plan and do not change while it runs: they
// are read once, on the first poll (again on the next while that read fails).
// A developer's graph has a button on each job (run, cancel, retry): it calls the API and the page
// follows again at once (also a pipeline that had finished: a retry starts it again).
import { allPages, apiFetch, errorText } from './api.js';
import { startTicker } from './ticker.js';
import { isFinished, pipelineLive } from '../views/pipeline_graph.js';
import { localTimes } from './times.js';

const POLL_MS = 2000;

export function initPipeline(root: ParentNode): void {
  const live = root.querySelector<HTMLElement>('[data-pipeline-live]');
  if (!live) return;
  const at = `/projects/${live.dataset.projectId}/pipelines/${live.dataset.pipelineId}`;
  const actions = live.dataset.actions !== undefined;
  let needs: any[] | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // after an action the page reads on a while even if the pipeline still looks finished
  let grace = 0;
  const note = root.querySelector<HTMLElement>('[data-live-note]');
  const follow = (ms: number): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
  };
  live.addEventListener('click', (ev) => {
    const button = (ev.target as Element).closest<HTMLButtonElement>('button[data-job-action]');
    if (!button) return;
    button.disabled = true;
    void apiFetch('POST', button.dataset.jobAction!).then((a) => {
      if (note) note.textContent = a.ok ? 'Statuses update while the pipeline runs.' : errorText(a);
      grace = 3;
      follow(0);
    });
  });
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
      live.innerHTML = pipelineLive({ pipeline: p.body, jobs, bridges, needs, actions }).text;
      localTimes(live);
      startTicker(root);
      live.dataset.status = p.body.status;
      const again = live.querySelector<HTMLElement>('.graph-scroll');
      if (again) again.scrollLeft = left;
      if (isFinished(p.body.status) && grace-- <= 0) {
        if (note) note.textContent = '';
        root.querySelectorAll('[data-while-active]').forEach((el) => el.remove());
        return;
      }
    }
    follow(POLL_MS);
  };
  startTicker(root);
  if (!isFinished(live.dataset.status)) follow(POLL_MS);
}
