// The web's archive links: `/{project}/-/archive/{ref}/{name}.{format}` (a ref may hold slashes;
// the last segment is the file name). Streamed from the domain as the visitor: an archive never
// passes through the in-process API client, which would hold it whole.
import { archiveFormatNames, repositoryArchive } from '../../domain/repository/archive.js';
import { toHttpError } from '../../http/errors.js';
import { PageNotFound, SENT, type PageOutcome, type ProjectPage, type ProjectPageContext } from '../page.js';

async function archivePage(ctx: ProjectPageContext): Promise<PageOutcome> {
  const rest = (ctx.params['*'] ?? '').trim();
  const cut = rest.lastIndexOf('/');
  if (cut <= 0) throw new PageNotFound();
  const ref = rest.slice(0, cut);
  const file = rest.slice(cut + 1);
  const format = archiveFormatNames.find((f) => file.endsWith(`.${f}`));
  if (!format) throw new PageNotFound();
  const name = file.slice(0, -(format.length + 1));
  // As the reference: the sha joins the name unless the file is asked as `<project>-<ref>` (or by sha).
  const appendSha = name === `${ctx.project.path}-${ref.replace(/\//g, '-')}` ? false : null;
  let a;
  try {
    a = await repositoryArchive(ctx.c, await ctx.actor(), ctx.project.id, { ref, format, path: ctx.query.get('path') ?? undefined, appendSha });
  } catch (e) {
    // whatever the API would refuse (an unknown ref, a hidden project) is no page
    if (toHttpError(e)) throw new PageNotFound();
    throw e;
  }
  ctx.reply
    .code(200)
    .headers({ ...a.headers, 'content-type': a.contentType, 'cache-control': ctx.project.visibility === 'public' ? 'max-age=60, public' : 'max-age=60, private' })
    .send(a.stream);
  return SENT;
}

export const repositoryArchivePages: ProjectPage[] = [{ path: 'archive/*', handler: archivePage }];
