// A job's artifacts at the reference's web URLs: download (the API's archive endpoint), browse the
// archive's folders, and one file raw. The archive comes from the REST API as the visitor
// (GET /projects/:id/jobs/:job_id/artifacts); the API has no listing, so the page reads the zip's
// directory and the one entry it shows through byte ranges of that download, never the archive.
import { encodePath, html } from '../html.js';
import { PageNotFound, SENT, unlessHidden, type PageOutcome, type ProjectPage, type ProjectPageContext } from '../page.js';
import { getJob } from '../../domain/ci/jobs.js';
import { presentJob } from '../../api/jobs/present.js';
import { sitePath } from '../views/lists.js';
import { entryContent, zipEntries, type ReadAt, type ZipEntry } from '../../ci/artifacts/zip.js';

/** A file shown raw is read whole: a larger one is left to the archive's download. */
export const RAW_FILE_LIMIT = 16 * 1024 * 1024;

/** The job, read from the domain as the visitor (the jobs API asks for a sign-in; the pages show public jobs to anyone). */
async function jobOf(ctx: ProjectPageContext): Promise<any> {
  if (!/^\d{1,12}$/.test(ctx.params.id)) throw new PageNotFound();
  const view = await unlessHidden(getJob(ctx.c, await ctx.actor(), ctx.project.id, Number(ctx.params.id)));
  if (!view) throw new PageNotFound();
  return presentJob(ctx.c, view);
}

/** The job's archive, read by ranges through the API as the visitor, and its entries. */
async function archiveOf(ctx: ProjectPageContext, job: any): Promise<{ entries: ZipEntry[]; readAt: ReadAt }> {
  const size = job.artifacts_file?.size;
  if (!Number.isInteger(size)) throw new PageNotFound();
  const readAt: ReadAt = async (position, length) => {
    const end = Math.min(position + length, size) - 1;
    const a = await ctx.api.get(`/projects/${ctx.project.id}/jobs/${job.id}/artifacts`, { range: `bytes=${position}-${end}` });
    if (a.status !== 206) throw new PageNotFound(); // erased, expired or not readable meanwhile
    return a.bytes;
  };
  const entries = await zipEntries(readAt, size);
  if (!entries) throw new PageNotFound();
  return { entries, readAt };
}

/** The folder's children: files and folders (implied by deeper paths too), folders first. */
function children(entries: ZipEntry[], dir: string): { name: string; dir: boolean; size: number }[] {
  const seen = new Map<string, { name: string; dir: boolean; size: number }>();
  for (const e of entries) {
    if (!e.path.startsWith(dir) || e.path === dir) continue;
    const rest = e.path.slice(dir.length);
    const cut = rest.indexOf('/');
    const name = cut < 0 ? rest : rest.slice(0, cut);
    if (!seen.has(name)) seen.set(name, { name, dir: cut >= 0, size: cut < 0 ? e.size : 0 });
  }
  return [...seen.values()].sort((a, b) => Number(b.dir) - Number(a.dir) || a.name.localeCompare(b.name));
}

const sizeText = (n: number): string => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

async function browse(ctx: ProjectPageContext): Promise<PageOutcome> {
  const job = await jobOf(ctx);
  const jobBase = `/${encodePath(ctx.project.path_with_namespace)}/-/jobs/${job.id}`;
  const { entries } = await archiveOf(ctx, job);
  const sub = (ctx.params['*'] ?? '').replace(/^\/+|\/+$/g, '');
  const dir = sub ? `${sub}/` : '';
  const list = children(entries, dir);
  if (sub && list.length === 0) throw new PageNotFound();
  const parts = sub ? sub.split('/') : [];
  return {
    title: `Artifacts · ${job.name} · ${ctx.project.name_with_namespace}`,
    section: 'pipelines',
    body: html`<p class="breadcrumbs"><a href="${sitePath(job.pipeline.web_url)}">#${job.pipeline.id}</a> / <a href="${sitePath(job.web_url)}">${job.name}</a></p>
<div class="toolbar"><h1>Artifacts</h1><a class="button" href="${jobBase}/artifacts/download">Download artifacts archive</a></div>
<nav aria-label="Folder" class="breadcrumbs"><a href="${jobBase}/artifacts/browse">artifacts</a>${parts.map(
      (p, i) => html` / <a href="${jobBase}/artifacts/browse/${encodePath(parts.slice(0, i + 1).join('/'))}"${i === parts.length - 1 ? html` aria-current="page"` : ''}>${p}</a>`,
    )}</nav>
<table class="artifact-list">
  <caption class="visually-hidden">Files in ${dir || 'the archive'}</caption>
  <thead><tr><th scope="col">Name</th><th scope="col" class="size">Size</th></tr></thead>
  <tbody>
  ${sub ? html`<tr><td><a href="${jobBase}/artifacts/browse/${encodePath(parts.slice(0, -1).join('/'))}" title="Parent folder"><span aria-hidden="true">..</span><span class="visually-hidden">Parent folder</span></a></td><td></td></tr>` : ''}
  ${list.map(
    (c) => html`<tr>
    <td>${c.dir ? html`<a href="${jobBase}/artifacts/browse/${encodePath(dir + c.name)}">${c.name}/</a>` : html`<a href="${jobBase}/artifacts/raw/${encodePath(dir + c.name)}">${c.name}</a>`}</td>
    <td class="size">${c.dir ? '' : sizeText(c.size)}</td>
  </tr>`,
  )}
  </tbody>
</table>`,
  };
}

function tooLargeToShow(ctx: ProjectPageContext, job: any, entry: ZipEntry): PageOutcome {
  const jobBase = `/${encodePath(ctx.project.path_with_namespace)}/-/jobs/${job.id}`;
  return {
    title: `Artifacts · ${job.name} · ${ctx.project.name_with_namespace}`,
    section: 'pipelines',
    body: html`<h1>${entry.path}</h1>
<p>This file (${sizeText(entry.size)}) is too large to show here.</p>
<p><a class="button" href="${jobBase}/artifacts/download">Download artifacts archive</a></p>`,
  };
}

async function rawFile(ctx: ProjectPageContext): Promise<PageOutcome> {
  const job = await jobOf(ctx);
  const { entries, readAt } = await archiveOf(ctx, job);
  const entry = entries.find((e) => e.path === ctx.params['*'] && !e.path.endsWith('/'));
  if (!entry) throw new PageNotFound();
  if (entry.size > RAW_FILE_LIMIT) return tooLargeToShow(ctx, job, entry);
  const data = await entryContent(readAt, entry);
  if (!data) throw new PageNotFound();
  // Shown as text when it is text; never as HTML (an artifact is whatever the job wrote).
  const text = !data.includes(0) && Buffer.from(data.toString('utf8'), 'utf8').equals(data);
  const name = entry.path.split('/').pop()!;
  await ctx.reply
    .code(200)
    .header('content-type', text ? 'text/plain; charset=utf-8' : 'application/octet-stream')
    .header('content-disposition', `${text ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(name)}`)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cache-control', 'no-store')
    .send(data);
  return SENT;
}

export const ciArtifactPages: ProjectPage[] = [
  {
    // The reference's download URL: the API's archive endpoint, with the visitor's session.
    path: 'jobs/:id/artifacts/download',
    async handler(ctx) {
      if (!/^\d{1,12}$/.test(ctx.params.id)) throw new PageNotFound();
      await ctx.reply.redirect(`/api/v4/projects/${ctx.project.id}/jobs/${ctx.params.id}/artifacts`, 302);
      return SENT;
    },
  },
  { path: 'jobs/:id/artifacts/browse', handler: browse },
  { path: 'jobs/:id/artifacts/browse/*', handler: browse },
  { path: 'jobs/:id/artifacts/raw/*', handler: rawFile },
];
