// The GIT scenario's seed and figures: a repository of 10,000 commits (ANVIL_BENCH_COMMITS) built
// locally with one `git fast-import`, pushed over smart HTTP to a new project on the running
// server (timed), cloned back (timed); then 5,000 branches (ANVIL_BENCH_BRANCHES) pushed over HTTP
// in one push (timed), for the branches list scenario.
// `npm run bench -- git` runs only this scenario.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchContext } from './run.js';
import { oncePerServer } from './server.js';
import { finished, git, gitStream, gitText } from '../src/git/git.js';
import { openDatabase } from '../src/db/dialect.js';
import { countDueJobs, countJobsByState } from '../src/db/repos/background_jobs.js';

export const COMMIT_COUNT = Number(process.env.ANVIL_BENCH_COMMITS ?? 10_000);
export const BRANCH_COUNT = Number(process.env.ANVIL_BENCH_BRANCHES ?? 5_000);

export interface SeededGit {
  projectId: number;
  /** `namespace/project`, as the reference's performance tool names projects. */
  fullPath: string;
  /** The newest commit of main. */
  head: string;
  /** A file every commit's tree holds. */
  filePath: string;
}

/** Seeds once per server, however many scenarios ask. */
export const seedGit = oncePerServer(seed);

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const say = (s: string) => process.stdout.write(`${s}\n`);

/** One fast-import stream: a linear history on main, each commit changing one of 100 files. */
export async function buildHistory(dir: string, commits: number): Promise<void> {
  await git(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  const child = gitStream(['fast-import', '--quiet'], { gitDir: dir });
  const done = finished(child);
  const t0 = Date.parse('2024-01-01T00:00:00Z') / 1000;
  let chunk = '';
  for (let i = 1; i <= commits; i++) {
    const msg = `Commit ${i}\n`;
    const content = `line ${i}\n`.repeat(1 + (i % 7));
    chunk +=
      `commit refs/heads/main\nmark :${i}\ncommitter Bench <bench@example.com> ${t0 + i * 60} +0000\n` +
      `data ${Buffer.byteLength(msg)}\n${msg}${i > 1 ? `from :${i - 1}\n` : ''}` +
      `M 100644 inline dir${i % 10}/file${i % 100}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`;
    if (chunk.length > 1 << 16 || i === commits) {
      if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
      chunk = '';
    }
  }
  child.stdin.end();
  await done;
}

/** A new private project and its clone URL with root's credentials. */
export async function benchProject(ctx: BenchContext, name: string): Promise<{ project: any; remote: URL }> {
  const project = await ctx.api('POST', '/api/v4/projects', { name, visibility: 'private' });
  const remote = new URL(`${ctx.url}/${project.path_with_namespace}.git`);
  remote.username = 'root';
  remote.password = ctx.token;
  return { project, remote };
}

async function seed(ctx: BenchContext): Promise<SeededGit> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-bench-git-'));
  try {
    const { project, remote } = await benchProject(ctx, 'bench-git');

    let t = process.hrtime.bigint();
    const local = path.join(tmp, 'local.git');
    await buildHistory(local, COMMIT_COUNT);
    const built = ms(t);

    t = process.hrtime.bigint();
    await git(['push', '--quiet', remote.toString(), 'main:refs/heads/main'], { gitDir: local });
    const pushed = ms(t);
    const packBytes = Number(/size-pack: (\d+)/.exec(await gitText(['count-objects', '-v'], { gitDir: local }))?.[1] ?? 0) * 1024;

    t = process.hrtime.bigint();
    await git(['clone', '--quiet', remote.toString(), path.join(tmp, 'clone')]);
    const cloned = ms(t);
    const count = await gitText(['rev-list', '--count', 'HEAD'], { gitDir: path.join(tmp, 'clone', '.git') });
    if (Number(count) !== COMMIT_COUNT) throw new Error(`clone has ${count} commits, not ${COMMIT_COUNT}`);

    // Branches the way a team makes them: created locally, pushed over HTTP in one push; then
    // Anvil's own refresh job (which packs refs) runs before the listing is measured.
    t = process.hrtime.bigint();
    const shas = (await gitText(['rev-list', 'main'], { gitDir: local })).split('\n');
    let input = '';
    for (let i = 0; i < BRANCH_COUNT; i++) input += `create refs/heads/bench/branch-${String(i).padStart(5, '0')} ${shas[(i * 7) % shas.length]}\n`;
    await git(['update-ref', '--stdin'], { gitDir: local, input });
    await git(['push', '--quiet', remote.toString(), 'refs/heads/bench/*:refs/heads/bench/*'], { gitDir: local });
    const branched = ms(t);
    await waitForIdleQueue(ctx);

    say(`git: ${COMMIT_COUNT} commits built with fast-import in ${built.toFixed(0)} ms (pack ${(packBytes / 2 ** 20).toFixed(1)} MiB); ` +
      `push over HTTP ${pushed.toFixed(0)} ms; clone over HTTP ${cloned.toFixed(0)} ms; ` +
      `${BRANCH_COUNT} branches pushed over HTTP in one push in ${branched.toFixed(0)} ms`);
    return { projectId: project.id, fullPath: project.path_with_namespace, head: shas[0]!, filePath: 'dir1/file1.txt' };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Waits (up to 10 minutes: a shared machine can be that slow) until the server's background jobs (publication, refresh) have run. */
export async function waitForIdleQueue(ctx: BenchContext): Promise<void> {
  const db = await openDatabase({ databaseUrl: ctx.databaseUrl, dataDir: ctx.dataDir });
  try {
    for (let i = 0; i < 6000; i++) {
      const busy = await countDueJobs(db, new Date().toISOString());
      if (busy === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    const left = await countJobsByState(db);
    throw new Error(`background jobs did not finish within 600 s: ${JSON.stringify(left)}`);
  } finally {
    await db.destroy();
  }
}
