// The web interface's paint figure: the pipeline page of a 100-job pipeline (5 stages of 20),
// served by a local server process and loaded by Debian's Chromium, measured over several loads:
// first contentful paint (the browser's own `paint` entry), the document's response end and the
// load event, each from the navigation's start. Run: `npx tsx bench/web_paint.ts` (SQLite) or with
// ANVIL_TEST_DATABASE_URL set for a fresh PostgreSQL database. Not part of `npm test`: a figure,
// not an assertion. The runner is off so the pipeline stays as planned (statuses do not change
// what is drawn); the page's poll starts 2 s after load, after the figures are taken.
import { launchBrowser, screenshot, startWebServer } from '../test/helpers/web.js';

const JOBS = Number(process.env.ANVIL_BENCH_WEB_JOBS ?? 100);
const STAGES = 5;
const LOADS = Number(process.env.ANVIL_BENCH_WEB_LOADS ?? 15);

const ciFile = (): string => {
  const stages = Array.from({ length: STAGES }, (_, i) => `stage${i + 1}`);
  let out = `stages: [${stages.join(', ')}]\n`;
  for (let j = 0; j < JOBS; j++) out += `job-${String(j + 1).padStart(3, '0')}:\n  stage: ${stages[j % STAGES]}\n  script: echo ${j}\n`;
  return out;
};

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], p90: s[Math.min(s.length - 1, Math.floor(s.length * 0.9))], max: s[s.length - 1] };
};
const fmt = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ');

const dialect = process.env.ANVIL_TEST_DATABASE_URL ? 'postgres' : 'sqlite';
const s = await startWebServer(dialect, { ANVIL_RUNNER_ENABLED: 'false' });
const browser = await launchBrowser();
try {
  const p = await s.api('POST', '/projects', { name: 'paint', visibility: 'public', initialize_with_readme: true });
  const commit = await s.api('POST', `/projects/${p.body.id}/repository/commits`, {
    branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.service-ci.yml', content: ciFile() }],
  });
  if (commit.status !== 201) throw new Error(`commit: ${commit.status}`);
  let pipeline: any;
  for (let i = 0; i < 200 && !pipeline; i++) {
    pipeline = (await s.api('GET', `/projects/${p.body.id}/pipelines`)).body[0];
    if (!pipeline) await new Promise((r) => setTimeout(r, 100));
  }
  const jobs = await s.api('GET', `/projects/${p.body.id}/pipelines/${pipeline.id}/jobs?per_page=100`);
  const url = new URL(pipeline.web_url).pathname;
  const ctx = await browser.newContext({ baseURL: s.url, viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const fcp: number[] = [];
  const ttfb: number[] = [];
  const load: number[] = [];
  let bytes = 0;
  for (let i = 0; i <= LOADS; i++) {
    const res = await page.goto(url, { waitUntil: 'load' });
    if (res!.status() !== 200) throw new Error(`page: ${res!.status()}`);
    const m = await page.evaluate(async () => {
      // the paint entry may land just after load
      for (let k = 0; k < 50 && performance.getEntriesByName('first-contentful-paint').length === 0; k++) await new Promise((r) => setTimeout(r, 10));
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return {
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        responseEnd: nav.responseEnd,
        load: nav.loadEventEnd,
        nodes: document.querySelectorAll('.job-node').length,
        size: nav.transferSize,
      };
    });
    if (m.nodes !== JOBS) throw new Error(`drew ${m.nodes} nodes`);
    if (i === 0) continue; // the first load fills the caches (assets, the server's JIT)
    fcp.push(m.fcp);
    ttfb.push(m.responseEnd);
    load.push(m.load);
    bytes = m.size;
  }
  await screenshot(page, `web-paint-${JOBS}-jobs`);
  console.log(`pipeline page, ${JOBS} jobs (${jobs.body.length} listed), ${dialect}, ${LOADS} loads after one warm-up; HTML ${bytes} bytes`);
  console.log(`first contentful paint: ${fmt(stats(fcp))}`);
  console.log(`document response end:  ${fmt(stats(ttfb))}`);
  console.log(`load event end:         ${fmt(stats(load))}`);
} finally {
  await browser.close();
  await s.stop();
}
