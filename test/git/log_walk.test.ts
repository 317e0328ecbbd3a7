// The in-process commit walk (git/log.ts) against git log itself, run here as the oracle: every
// filter (path, since, until, all, first parent) and their combinations, pages included, on
// repositories built with git: a history made with git's porcelain (branches, merges that take
// one side, renames, deletions, a mode change, a directory that becomes a file, an octopus, tags
// of every kind, notes), a random branchy history with skewed and equal committer dates, and
// hand-made trees git's porcelain never writes (empty directories, a non-canonical mode). Each
// walked answer must also have started no process.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeGitProcesses } from '../../src/git/long_lived.js';
import { lastCommitFor, logCommits, type LogOptions } from '../../src/git/log.js';
import { initBare } from '../../src/git/repository.js';
import { commitDiff } from '../../src/git/commit_diff.js';
import { latestTagName, listTags, mergedBranches } from '../../src/git/ref_files.js';
import { reachedFrom } from '../../src/git/walk.js';
import { PLAIN_GIT_ENV } from '../helpers/git.js';
import { spawnsDuring } from '../helpers/spawns.js';

const ENV = PLAIN_GIT_ENV;

function run(args: string[], o: { cwd?: string; gitDir?: string; input?: string | Buffer; env?: Record<string, string> } = {}): string {
  const argv = o.gitDir ? [`--git-dir=${o.gitDir}`, ...args] : args;
  return execFileSync('git', argv, { cwd: o.cwd, input: o.input, env: { ...ENV, ...o.env }, maxBuffer: 64 << 20 }).toString('utf8');
}

/** git log's own answer to the options, as shas. */
function oracle(dir: string, o: LogOptions): string[] {
  const args = ['log', '--format=%H', `--skip=${o.skip}`, `--max-count=${o.limit}`];
  if (o.since) args.push(`--since=${o.since}`);
  if (o.until) args.push(`--until=${o.until}`);
  if (o.firstParent) args.push('--first-parent');
  if (o.topo) args.push('--topo-order');
  args.push(o.all ? '--all' : (o.rev ?? 'HEAD'), '--');
  if (o.path) args.push(o.path);
  return run(args, { gitDir: dir, env: { GIT_LITERAL_PATHSPECS: '1' } }).split('\n').filter(Boolean);
}

/** The walk's answer, which must have started no process. */
async function walked(dir: string, o: LogOptions): Promise<string[]> {
  const { spawned, result } = await spawnsDuring(() => logCommits(dir, o));
  assert.deepEqual(spawned, [], `walked without git: ${JSON.stringify(o)}`);
  return result.map((c) => c.id);
}

const iso = (seconds: number, ms = 0) => new Date(seconds * 1000 + ms).toISOString();

/** Committer times of every commit, for dates that fall on, just before and just after them. */
function times(dir: string): number[] {
  return [...new Set(run(['log', '--all', '--format=%ct'], { gitDir: dir }).split('\n').filter(Boolean).map(Number))].sort((a, b) => a - b);
}

/** since/until pairs around the history's times: on a commit's second (with a fraction), between, open-ended. */
function dateRanges(ts: number[]): { since?: string; until?: string }[] {
  const at = (f: number) => ts[Math.floor((ts.length - 1) * f)];
  return [
    {},
    { since: iso(at(0.5)) },
    { since: iso(at(0.3), 999) },
    { until: iso(at(0.6), 1) },
    { until: iso(at(0.4) - 1, 500) },
    { since: iso(at(0.2)), until: iso(at(0.7)) },
    { since: iso(at(0.9) + 1), until: iso(at(0.1)) }, // an empty range
  ];
}

const PAGES = [
  [0, 1],
  [2, 3],
  [5, 100],
];

/**
 * Compares the walk with git log on: every path and every date range from each revision, and the
 * `dated` paths with every range (from the first revision and all refs), each with and without
 * first parents, in git's default order and in --topo-order. Pages of each list are
 * compared too: with git's own --skip/--max-count for every seventh case (git runs are slow
 * here), with slices of the whole list (what those options are) for the rest.
 */
async function compareAll(dir: string, o: { revs: string[]; paths: (string | undefined)[]; ranges: { since?: string; until?: string }[]; dated: string[] }): Promise<number> {
  const cases: LogOptions[] = [];
  for (const topo of [false, true]) {
    for (const rev of o.revs) {
      const from = rev === 'all' ? { all: true } : { rev };
      for (const firstParent of [false, true]) {
        for (const p of o.paths) cases.push({ ...from, path: p, firstParent, topo, skip: 0, limit: 1000 });
        for (const range of o.ranges) cases.push({ ...from, ...range, firstParent, topo, skip: 0, limit: 1000 });
        if (rev === o.revs[0] || rev === 'all') for (const p of o.dated) for (const range of o.ranges) cases.push({ ...from, path: p, ...range, firstParent, topo, skip: 0, limit: 1000 });
      }
    }
  }
  let shown = 0;
  for (const [n, c] of cases.entries()) {
    const expected = oracle(dir, c);
    shown += expected.length;
    assert.deepEqual(await walked(dir, c), expected, JSON.stringify(c));
    for (const [skip, limit] of PAGES) {
      const page = { ...c, skip, limit };
      assert.deepEqual(await walked(dir, page), n % 7 === 0 ? oracle(dir, page) : expected.slice(skip, skip + limit), JSON.stringify(page));
    }
  }
  assert.ok(shown > cases.length, 'the lists are not all empty');
  return cases.length;
}

/** last_commit_id of a file: the walk with a path and a limit of one, against `git log -1`. */
async function compareLastCommits(dir: string, commits: string[], paths: string[]): Promise<void> {
  for (const sha of commits) {
    for (const p of paths) {
      const expected = run(['log', '-1', '--format=%H', sha, '--', p], { gitDir: dir, env: { GIT_LITERAL_PATHSPECS: '1' } }).trim() || null;
      const { spawned, result } = await spawnsDuring(() => lastCommitFor(dir, sha, p));
      assert.deepEqual(spawned, [], `${sha} ${p}`);
      assert.equal(result, expected, `last commit of ${p} at ${sha}`);
    }
  }
}

/**
 * Removes the repository's commit-graph, or writes one: of the commits `main~40` reaches (the
 * rest are newer than the file), or of every commit with changed-path Bloom filters.
 */
function writeGraph(dir: string, state: 'no commit-graph' | 'a commit-graph of part of the history' | 'a commit-graph with changed-path filters'): void {
  fs.rmSync(path.join(dir, 'objects', 'info', 'commit-graph'), { force: true });
  if (state === 'a commit-graph of part of the history') {
    run(['commit-graph', 'write', '--stdin-commits'], { gitDir: dir, input: run(['rev-parse', 'main~40'], { gitDir: dir }) });
  } else if (state === 'a commit-graph with changed-path filters') run(['commit-graph', 'write', '--reachable', '--changed-paths'], { gitDir: dir });
}

/**
 * Every commit's changes (commit_diff.ts) against `git diff -M` of the commit and its first
 * parent: the raw list's paths, modes and kinds, and each file's patch from its first hunk.
 */
async function compareDiffs(dir: string): Promise<void> {
  const EMPTY = run(['hash-object', '-t', 'tree', '--stdin'], { gitDir: dir, input: '' }).trim();
  let patches = 0;
  for (const line of run(['rev-list', '--all', '--parents'], { gitDir: dir }).split('\n').filter(Boolean)) {
    const [sha, parent] = line.split(' ');
    const common = ['-M', '--no-color', '--no-ext-diff', '--no-textconv', parent ?? EMPTY, sha, '--'];
    const raw = run(['diff', '--raw', '-z', '--no-abbrev', ...common], { gitDir: dir }).split('\0');
    const expected: { oldPath: string; newPath: string; aMode: string; bMode: string; status: string }[] = [];
    for (let i = 0; i < raw.length - 1; ) {
      const [aMode, bMode, , , status] = raw[i].slice(1).split(' ');
      const renamed = /^[RC]/.test(status);
      expected.push({ oldPath: raw[i + 1], newPath: renamed ? raw[i + 2] : raw[i + 1], aMode, bMode, status: status[0] });
      i += renamed ? 3 : 2;
    }
    const bodies = run(['diff', '-p', '--full-index', ...common], { gitDir: dir })
      .split(/^diff --git /m)
      .slice(1)
      .map((section) => (section.search(/^@@ /m) < 0 ? '' : section.slice(section.search(/^@@ /m))));
    const { spawned, result } = await spawnsDuring(() => commitDiff(dir, sha, parent ?? null));
    assert.deepEqual(spawned, []);
    assert.deepEqual(
      result.map((f) => ({ oldPath: f.oldPath, newPath: f.newPath, aMode: f.aMode, bMode: f.bMode, status: f.newFile ? 'A' : f.deletedFile ? 'D' : f.renamedFile ? 'R' : f.oldPath !== f.newPath ? 'C' : 'M' })),
      expected.map((e) => ({ ...e, status: e.status === 'T' ? 'M' : e.status })),
      sha,
    );
    assert.deepEqual(result.map((f) => f.diff), bodies, sha);
    patches += bodies.filter(Boolean).length;
  }
  assert.ok(patches > 10, `${patches} patches`);
}

/** A small deterministic random source (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILES = ['a', 'b/c', 'b/d/e', 'b/d/f', 'g/h', 'x', 'x/y', 'st*r', 'é/ü'];

/**
 * A fast-import stream of `n` commits on a random DAG: merges of two or three of the recent
 * commits whose tree takes each file from one parent or another (so a merge is often the same as
 * one parent at a path), changes, deletions, mode changes, empty commits, a file that becomes a
 * directory, and committer times that go back as well as forward and often tie.
 */
function randomHistory(seed: number, n: number): string {
  const rnd = random(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
  type Files = Map<string, { mode: string; content: string }>;
  const trees: Files[] = [];
  const timesOf: number[] = [];
  const heads: number[] = [];
  const out: string[] = [];
  const put = (files: Files, p: string, mode: string, content: string) => {
    // a file and a directory of one name cannot both be
    for (const k of [...files.keys()]) if (k.startsWith(`${p}/`) || p.startsWith(`${k}/`)) files.delete(k);
    files.set(p, { mode, content });
  };
  for (let i = 0; i < n; i++) {
    // a few lines of work that fork, merge each other (criss-cross too) and now and then start afresh
    const parents: number[] = [];
    let line = Math.floor(rnd() * heads.length);
    if (i > 0 && rnd() > 0.02) parents.push(heads[line]);
    for (const other of heads) if (other !== parents[0] && parents.length < 3 && rnd() < 0.15) parents.push(other);
    if (parents.length === 1 && i > 12 && rnd() < 0.05) parents.push(i - 1 - Math.floor(rnd() * 12)); // an older commit
    if (parents[1] === parents[0]) parents.pop();
    if (i === 0 || (heads.length < 4 && rnd() < 0.15)) line = heads.push(i) - 1;
    heads[line] = i;
    const files: Files = new Map();
    if (parents.length) {
      // each path from one of the parents: a merge often equals one of them at a path
      const paths = new Set(parents.flatMap((p) => [...trees[p].keys()]));
      const from = rnd() < 0.3 ? pick(parents) : -1;
      for (const p of [...paths].sort()) {
        const source = trees[from >= 0 ? from : pick(parents)].get(p);
        if (source && !files.has(p)) put(files, p, source.mode, source.content);
      }
    }
    for (let k = Math.floor(rnd() * 3); k > 0; k--) {
      const p = pick(FILES);
      const r = rnd();
      if (r < 0.2) files.delete(p);
      else if (r < 0.3 && files.has(p)) files.set(p, { ...files.get(p)!, mode: files.get(p)!.mode === '100644' ? '100755' : '100644' });
      else put(files, p, files.get(p)?.mode ?? '100644', `${p} ${i}\n`);
    }
    trees.push(files);
    const base = parents.length ? Math.max(...parents.map((p) => timesOf[p])) : 1_700_000_000;
    const t = base + Math.round((rnd() * 90 - 30) / 10) * 10; // back and forth, in steps that tie often
    timesOf.push(t);
    out.push('reset refs/heads/scratch', 'commit refs/heads/scratch', `mark :${i + 1}`, `committer C <c@x> ${t} +0000`, `data ${`c${i}`.length}`, `c${i}`);
    parents.forEach((p, k) => out.push(`${k === 0 ? 'from' : 'merge'} :${p + 1}`));
    out.push('deleteall');
    for (const [p, f] of [...files].sort()) out.push(`M ${f.mode} inline ${p}`, `data ${Buffer.byteLength(f.content)}`, f.content);
  }
  heads.forEach((h, k) => out.push(`reset refs/heads/${k === 0 ? 'main' : `b${k}`}`, `from :${h + 1}`));
  out.push('reset refs/heads/scratch', `from :${1 + Math.floor(rnd() * n)}`);
  out.push('tag v1', `from :${Math.floor(n / 2)}`, 'tagger T <t@x> 1700000000 +0000', 'data 2', 'v1');
  return out.join('\n') + '\n';
}

describe('commit walk against git log', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-log-walk-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('a history made with git porcelain', () => {
    let dir: string;
    const shas: Record<string, string> = {};
    before(() => {
      const work = path.join(tmp, 'work');
      run(['init', '-q', '-b', 'main', work]);
      const t0 = 1_700_000_000;
      const at = (dt: number) => ({ GIT_AUTHOR_DATE: `${t0 + dt} +0100`, GIT_COMMITTER_DATE: `${t0 + dt} +0000` });
      const git = (args: string[], dt = 0) => run(args, { cwd: work, env: at(dt) });
      const write = (f: string, content: string) => {
        fs.mkdirSync(path.dirname(path.join(work, f)), { recursive: true });
        fs.writeFileSync(path.join(work, f), content);
      };
      const commit = (name: string, dt: number) => {
        git(['add', '-A']);
        git(['commit', '-q', '--allow-empty', '-m', name], dt);
        shas[name] = git(['rev-parse', 'HEAD']).trim();
      };
      write('README', 'hello\n');
      write('src/a.txt', 'a\n');
      write('src/lib/b.txt', 'b\n');
      write('docs/guide.md', 'guide\n');
      write('st*r', 'star\n');
      commit('root', 0);
      write('src/a.txt', 'a2\n');
      commit('edit a', 10);
      git(['checkout', '-q', '-b', 'feature']);
      write('src/lib/b.txt', 'b2\n');
      commit('feature b', 20);
      write('docs/new.md', 'new\n');
      commit('feature docs, dated before its parent', 5);
      git(['checkout', '-q', 'main']);
      git(['mv', 'src/a.txt', 'src/renamed.txt']);
      commit('rename a', 30);
      git(['merge', '-q', '--no-ff', '-m', 'merge feature', 'feature'], 40);
      shas['merge feature'] = git(['rev-parse', 'HEAD']).trim();
      git(['checkout', '-q', '-b', 'side', shas['edit a']]);
      write('README', 'side readme\n');
      commit('side readme, tied with the merge', 40);
      git(['checkout', '-q', 'main']);
      git(['merge', '-q', '-s', 'ours', '-m', 'merge side, keeping ours', 'side'], 50);
      shas['merge ours'] = git(['rev-parse', 'HEAD']).trim();
      git(['rm', '-q', 'docs/guide.md']);
      commit('remove guide, dated before its parent', 45);
      git(['checkout', '-q', '-b', 'hot', shas.root]);
      write('docs/guide.md', 'hot guide\n');
      write('README', 'hot readme\n');
      commit('hot guide', 60);
      git(['checkout', '-q', 'main']);
      // hot changed the guide main removed: the merge keeps it removed (the same as main there)
      try {
        git(['merge', '-q', '-m', 'merge hot', 'hot'], 65);
      } catch {
        git(['rm', '-q', 'docs/guide.md']);
        git(['commit', '-q', '--no-edit'], 65);
      }
      shas['merge hot'] = git(['rev-parse', 'HEAD']).trim();
      fs.chmodSync(path.join(work, 'src/renamed.txt'), 0o755);
      commit('make renamed executable', 70);
      git(['rm', '-q', '-r', 'docs']);
      write('docs', 'docs is a file now\n');
      commit('docs becomes a file', 80);
      for (const b of ['o1', 'o2']) {
        git(['checkout', '-q', '-b', b, 'main']);
        write(`src/${b}.txt`, `${b}\n`);
        commit(b, b === 'o1' ? 85 : 80);
      }
      git(['checkout', '-q', 'main']);
      git(['merge', '-q', '-m', 'octopus', 'o1', 'o2'], 90);
      shas.octopus = git(['rev-parse', 'HEAD']).trim();
      commit('empty, tied with the octopus', 90);
      git(['tag', 'v0', shas.root]);
      git(['tag', '-a', '-m', 'one', 'v1', shas['merge feature']], 100);
      git(['tag', '-a', '-m', 'of a tag', 'v1-again', 'v1'], 100);
      git(['tag', 'a-tree', `${shas['edit a']}^{tree}`]);
      git(['tag', '-a', '-m', 'a blob', 'a-blob', `${shas.root}:README`], 100);
      git(['notes', 'add', '-m', 'a note', shas['edit a']], 95);
      dir = path.join(tmp, 'porcelain.git');
      run(['clone', '-q', '--mirror', work, dir]);
      // loose refs beside the packed ones the clone wrote
      run(['update-ref', 'refs/heads/late', shas['feature b']], { gitDir: dir });
      run(['update-ref', 'refs/keep/x', shas['side readme, tied with the merge']], { gitDir: dir });
    });
    after(() => closeGitProcesses(dir));

    for (const graph of ['no commit-graph', 'a commit-graph with changed-path filters'] as const) {
      it(`every filter and combination answers as git log does, without starting a process: ${graph}`, async () => {
        writeGraph(dir, graph);
        const paths = [undefined, 'README', 'src', 'src/', 'src/lib/b.txt', './src//lib', 'src/renamed.txt', 'src/a.txt', 'docs', 'docs/', 'docs/guide.md', 'st*r', 's*', '.', 'nope', 'README/'];
        const revs = ['main', 'feature', 'v1', shas['merge hot'].slice(0, 12), 'main~3', 'v1^2', 'all'];
        const cases = await compareAll(dir, { revs, paths, ranges: dateRanges(times(dir)), dated: ['src', 'docs/guide.md'] });
        assert.ok(cases > 200, `${cases} cases`);
      });
    }

    it('every commit\'s changes as git diff shows them, renames found, without starting a process', async () => {
      await compareDiffs(dir);
    });

    it('tags of every kind as for-each-ref shows them, without starting a process', async () => {
      run(['tag', '-a', '-m', 'zoned', 'v2-zoned', shas.octopus], { gitDir: dir, env: { GIT_COMMITTER_DATE: '1700000200 -0730' } });
      run(['tag', '-a', '-m', 'line one\n\nbody\n\n', 'v3-body', shas.root], { gitDir: dir });
      const fmt = ['%(refname:strip=2)', '%(objectname)', '%(*objecttype)', '%(*objectname)', '%(objecttype)', '%(creatordate:iso-strict)', '%(contents)'].join('%1f');
      const expected = run(['for-each-ref', `--format=%1e${fmt}`, 'refs/tags'], { gitDir: dir })
        .split('\x1e')
        .filter(Boolean)
        .map((r) => {
          const [name, target, peeledType, peeled, type, date, message] = r.split('\x1f');
          const commit = type === 'tag' ? (peeledType === 'commit' ? peeled : null) : type === 'commit' ? target : null;
          return { name, target, commit, date, message: type === 'tag' ? message.replace(/\n+$/, '') : null };
        });
      const { spawned, result } = await spawnsDuring(() => listTags(dir));
      assert.deepEqual(spawned, []);
      assert.deepEqual(
        result.map((t) => ({ name: t.name, target: t.target, commit: t.commit?.id ?? null, date: t.date, message: t.message })),
        expected,
      );
      assert.ok(expected.length >= 7 && expected.some((t) => t.commit === null) && expected.some((t) => t.message === null));
      // the latest tag: the newest creator date, ties by name; then one tied with it, named before it
      const latest = () => run(['for-each-ref', '--sort=-creatordate', '--count=1', '--format=%(refname:strip=2)', 'refs/tags'], { gitDir: dir }).trim();
      assert.equal(await latestTagName(dir), latest());
      const newest = result.reduce((a, b) => (Date.parse(b.date) > Date.parse(a.date) ? b : a));
      run(['tag', '-a', '-m', 'tied', '0-tied', shas.root], { gitDir: dir, env: { GIT_COMMITTER_DATE: `${Date.parse(newest.date) / 1000} +0000` } });
      assert.equal(latest(), '0-tied');
      assert.equal(await latestTagName(dir), '0-tied');
    });

    it('the last commit of a file, from commits all over the history', async () => {
      const some = run(['rev-list', '--all'], { gitDir: dir }).split('\n').filter((s, i) => s && i % 3 === 0);
      await compareLastCommits(dir, some, ['README', 'src/lib/b.txt', 'src/renamed.txt', 'docs/guide.md', 'docs', 'st*r']);
    });
  });
  describe('a random branchy history with skewed and tied dates', () => {
    let dir: string;
    before(async () => {
      dir = path.join(tmp, 'random.git');
      await initBare(dir, 'main');
      run(['fast-import', '--quiet'], { gitDir: dir, input: randomHistory(7, 160) });
    });
    after(() => closeGitProcesses(dir));

    // the walk reads a commit from the commit-graph where it is there, as an object where it is not
    for (const graph of ['no commit-graph', 'a commit-graph of part of the history', 'a commit-graph with changed-path filters'] as const) {
      it(`every filter and combination answers as git log does, without starting a process: ${graph}`, async () => {
        writeGraph(dir, graph);
        const paths = [undefined, 'a', 'b', 'b/d', 'b/d/e', 'b/d/', 'x', 'x/', 'x/y', 'g/h', 'st*r', 'é/ü', '.'];
        const cases = await compareAll(dir, { revs: ['main', 'b1', 'all'], paths, ranges: dateRanges(times(dir)), dated: ['b/d', 'x'] });
        assert.ok(cases > 100, `${cases} cases`);
      });
    }

    it('every commit\'s changes as git diff shows them, without starting a process', async () => {
      await compareDiffs(dir);
    });

    it('merged branches: the tips a commit reaches, walked on the commit-graph as git --merged finds them', async () => {
      const all = run(['rev-list', '--all'], { gitDir: dir }).split('\n').filter(Boolean);
      const heads = all.filter((s, i) => i % 23 === 0);
      const tips = all.filter((s, i) => i % 5 === 0);
      const branches = new Map(tips.map((sha, i) => [`t${i}`, sha]));
      for (const graph of ['no commit-graph', 'a commit-graph of part of the history', 'a commit-graph with changed-path filters'] as const) {
        writeGraph(dir, graph);
        for (const head of heads) {
          // git's answer, from refs pointing at the tips
          const refs = tips.map((sha, i) => `create refs/merged-test/t${i} ${sha}`).join('\n') + '\n';
          run(['update-ref', '--stdin'], { gitDir: dir, input: refs });
          const expected = run(['for-each-ref', `--merged=${head}`, '--format=%(refname:strip=2)', 'refs/merged-test/'], { gitDir: dir }).split('\n').filter(Boolean);
          run(['update-ref', '--stdin'], { gitDir: dir, input: tips.map((_, i) => `delete refs/merged-test/t${i}`).join('\n') + '\n' });
          const reached = await reachedFrom(dir, head, tips);
          if (graph === 'no commit-graph') {
            assert.equal(reached, null);
            continue;
          }
          assert.deepEqual([...tips.entries()].filter(([, sha]) => reached!.has(sha)).map(([i]) => `t${i}`).sort(), expected.sort(), `${graph}: merged into ${head}`);
        }
      }
      // the branch list's "merged": no git run once the graph is there
      const { spawned, result } = await spawnsDuring(() => mergedBranches(dir, heads[1], branches));
      assert.deepEqual(spawned, []);
      assert.ok(result.size > 0 && result.size < branches.size);
    });

    it('the last commit of a file, from commits all over the history', async () => {
      const some = run(['rev-list', '--all'], { gitDir: dir }).split('\n').filter((s, i) => s && i % 9 === 0);
      await compareLastCommits(dir, some, ['a', 'b/d', 'x', 'x/y']);
    });
  });

  describe('trees git porcelain never writes', () => {
    let dir: string;
    let tip: string;
    before(async () => {
      dir = path.join(tmp, 'crafted.git');
      await initBare(dir, 'main');
      const blob = (content: string) => run(['hash-object', '-w', '--stdin'], { gitDir: dir, input: content }).trim();
      // entries in git's order: the names are chosen so that plain byte order is it
      const tree = (entries: [string, string, string][]) =>
        run(['hash-object', '-w', '-t', 'tree', '--literally', '--stdin'], {
          gitDir: dir,
          input: Buffer.concat(entries.map(([mode, name, sha]) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(sha, 'hex')]))),
        }).trim();
      const empty = tree([]);
      const [a, f, g] = [blob('a\n'), blob('f\n'), blob('g\n')];
      const steps: [string, string][] = [
        ['root', tree([['100644', 'a', a], ['40000', 'd', tree([['100644', 'f', f]])]])],
        ['d gains an empty directory', tree([['100644', 'a', a], ['40000', 'd', tree([['40000', 'e', empty], ['100644', 'f', f]])]])],
        ['a in a non-canonical mode', tree([['100664', 'a', a], ['40000', 'd', tree([['40000', 'e', empty], ['100644', 'f', f]])]])],
        ['an empty z', tree([['100664', 'a', a], ['40000', 'd', tree([['40000', 'e', empty], ['100644', 'f', f]])], ['40000', 'z', empty]])],
        ['a executable', tree([['100755', 'a', a], ['40000', 'd', tree([['40000', 'e', empty], ['100644', 'f', f]])], ['40000', 'z', empty]])],
        ['d/e gains a file', tree([['100755', 'a', a], ['40000', 'd', tree([['40000', 'e', tree([['100644', 'g', g]])], ['100644', 'f', f]])], ['40000', 'z', empty]])],
        ['z holds an empty directory', tree([['100755', 'a', a], ['40000', 'd', tree([['40000', 'e', tree([['100644', 'g', g]])], ['100644', 'f', f]])], ['40000', 'z', tree([['40000', 'y', empty]])]])],
      ];
      let parent: string | null = null;
      steps.forEach(([message, t], i) => {
        const env = { GIT_AUTHOR_DATE: `${1_700_000_000 + i} +0000`, GIT_COMMITTER_DATE: `${1_700_000_000 + i} +0000` };
        parent = run(['commit-tree', t, ...(parent ? ['-p', parent] : []), '-m', message], { gitDir: dir, env }).trim();
      });
      tip = parent!;
      run(['update-ref', 'refs/heads/main', tip], { gitDir: dir });
    });
    after(() => closeGitProcesses(dir));

    it('an empty directory is no change, a mode is compared as git canonicalises it', async () => {
      const paths = ['.', 'a', 'd', 'd/', 'd/e', 'd/e/g', 'd/f', 'z', 'z/', 'z/y'];
      await compareAll(dir, { revs: ['main'], paths, ranges: [{}], dated: [] });
      await compareLastCommits(dir, [tip], paths);
    });
  });
  describe('a long history, where git log answers, and the starting points of --all', () => {
    let dir: string;
    let old: string;
    const HISTORY = 2_500;
    before(async () => {
      dir = path.join(tmp, 'long.git');
      await initBare(dir, 'main');
      // a long line: `often` changes in every commit, `rare` only in the first
      const out: string[] = [];
      for (let i = 0; i < HISTORY; i++) {
        out.push('commit refs/heads/main', `mark :${i + 1}`, `committer C <c@x> ${1_600_000_000 + i * 60} +0000`, `data ${`c${i}`.length}`, `c${i}`);
        if (i > 0) out.push(`from :${i}`);
        if (i === 0) out.push('M 100644 inline rare', 'data 2', 'r');
        out.push('M 100644 inline often', `data ${String(i).length}`, String(i));
      }
      run(['fast-import', '--quiet'], { gitDir: dir, input: out.join('\n') + '\n' });
      old = run(['rev-parse', 'main~100'], { gitDir: dir }).trim();
    });
    after(() => closeGitProcesses(dir));

    /** The answer must be git log's, and git log must have given it. */
    async function byGit(o: LogOptions): Promise<void> {
      const { spawned, result } = await spawnsDuring(() => logCommits(dir, o));
      assert.equal(spawned.filter((c) => c.includes(' log ')).length, 1, `git log answered ${JSON.stringify(o)}: ${spawned.join(', ')}`);
      assert.deepEqual(
        result.map((c) => c.id),
        oracle(dir, o),
      );
    }

    for (const graph of ['no commit-graph', 'a commit-graph with changed-path filters'] as const) {
      it(`a long walk for few commits, a deep page and --topo-order, without starting a process: ${graph}`, async () => {
        writeGraph(dir, graph);
        const page = { rev: 'main', skip: 0, limit: 21 };
        for (const o of [
          { ...page, path: 'often' },
          { ...page, path: 'rare' }, // 2,500 commits read for one shown
          { ...page, until: iso(1_600_000_000 + 60) }, // two shown, from the far end
          { ...page, skip: 995, limit: 10 },
          { ...page, skip: 2_480, limit: 30 },
          { ...page, path: 'often', skip: 2_000 },
          { ...page, topo: true },
          { ...page, topo: true, skip: 1_500, path: 'often' },
          { ...page, topo: true, all: true, since: iso(1_600_000_000 + 60 * 2_000) },
        ]) {
          assert.deepEqual(await walked(dir, o), oracle(dir, o), JSON.stringify(o));
        }
        const { spawned, result } = await spawnsDuring(() => lastCommitFor(dir, run(['rev-parse', 'main'], { gitDir: dir }).trim(), 'rare'));
        assert.equal(result, run(['rev-list', '--max-parents=0', 'main'], { gitDir: dir }).trim());
        assert.deepEqual(spawned, []);
      });
    }

    it('a commit-graph cut short is not read: the walk reads objects and answers as git log does', async () => {
      writeGraph(dir, 'a commit-graph with changed-path filters');
      const file = path.join(dir, 'objects', 'info', 'commit-graph');
      const whole = fs.readFileSync(file);
      fs.rmSync(file);
      fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
      for (const o of [{ rev: 'main', skip: 10, limit: 5 }, { rev: 'main', skip: 0, limit: 5, path: 'rare' }, { rev: 'main', skip: 0, limit: 5, topo: true }]) {
        assert.deepEqual(await walked(dir, o), oracle(dir, o), JSON.stringify(o));
      }
      fs.rmSync(file);
    });

    it('a commit whose patch arrives in many pieces: a file over the cap shows none, the next one its own', async () => {
      const big = (n: number) => Array.from({ length: 40_000 }, (_, i) => `line ${i} ${n}`).join('\n') + '\n';
      const stream = [
        'commit refs/heads/big', 'mark :1', 'committer C <c@x> 1500000000 +0000', 'data 2', 'b1', 'M 100644 inline a-big', `data ${big(1).length}`, big(1), 'M 100644 inline b-small', 'data 2', 'x',
        'commit refs/heads/big', 'mark :2', 'committer C <c@x> 1500000001 +0000', 'data 2', 'b2', 'from :1', 'M 100644 inline a-big', `data ${big(2).length}`, big(2), 'M 100644 inline b-small', 'data 2', 'y',
      ];
      run(['fast-import', '--quiet'], { gitDir: dir, input: stream.join('\n') + '\n' });
      const [tip, parent] = run(['rev-list', '--parents', '-1', 'big'], { gitDir: dir }).trim().split(' ');
      const { spawned, result } = await spawnsDuring(() => Promise.all([commitDiff(dir, tip, parent), commitDiff(dir, parent, null)]));
      assert.deepEqual(spawned, []);
      const [second, first] = result;
      assert.deepEqual(second.map((f) => [f.newPath, f.diff]), [['a-big', ''], ['b-small', '@@ -1 +1 @@\n-x\n+y\n']]);
      assert.deepEqual(first.map((f) => [f.newPath, f.newFile, f.diff === '']), [['a-big', true, true], ['b-small', true, false]]);
      run(['update-ref', '-d', 'refs/heads/big'], { gitDir: dir });
    });

    it('dates git reads its own way go to git', async () => {
      const page = { rev: 'main', skip: 0, limit: 21 };
      await byGit({ ...page, since: '2150-01-01T00:00:00.000Z' });
      await byGit({ ...page, until: '1969-12-31T23:59:59.000Z' });
    });

    it('a path outside the repository names nothing, without git', async () => {
      for (const p of ['../often', '/often', 'a/../../often']) {
        assert.deepEqual(await walked(dir, { rev: 'main', path: p, skip: 0, limit: 20 }), []);
        const { spawned, result } = await spawnsDuring(() => lastCommitFor(dir, old, p));
        assert.deepEqual([spawned, result], [[], null]);
      }
    });

    it('a commit the parser does not render sends the list to git', async () => {
      const body = `tree ${run(['rev-parse', 'main^{tree}'], { gitDir: dir }).trim()}\nparent ${old}\nauthor A <a@x> 1700000000 +0000\ncommitter C <c@x> 1700000000 +0000\nencoding ISO-8859-1\n\nlatin \xe9\n`;
      const odd = run(['hash-object', '-w', '-t', 'commit', '--stdin'], { gitDir: dir, input: Buffer.from(body, 'latin1') }).trim();
      run(['update-ref', 'refs/heads/odd', odd], { gitDir: dir });
      await byGit({ rev: 'odd', path: 'often', skip: 0, limit: 5 });
      await byGit({ all: true, path: 'often', skip: 0, limit: 5 });
      run(['update-ref', '-d', 'refs/heads/odd'], { gitDir: dir });
    });

    it('--all starts from every ref and HEAD: detached, on a branch not born yet, or through a symbolic ref (git)', async () => {
      const page = { all: true, skip: 0, limit: 30 };
      run(['update-ref', 'refs/heads/side', old], { gitDir: dir });
      // HEAD detached at a commit no ref reaches, the newest of all
      const lone = run(['commit-tree', `${old}^{tree}`, '-p', old, '-m', 'lone'], { gitDir: dir, env: { GIT_COMMITTER_DATE: '@1700000000 +0000' } }).trim();
      fs.writeFileSync(path.join(dir, 'HEAD'), `${lone}\n`);
      assert.equal((await walked(dir, page))[0], lone);
      assert.deepEqual(await walked(dir, page), oracle(dir, page));
      run(['symbolic-ref', 'HEAD', 'refs/heads/unborn'], { gitDir: dir });
      assert.deepEqual(await walked(dir, page), oracle(dir, page));
      run(['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/heads/side'], { gitDir: dir });
      await byGit(page);
      run(['symbolic-ref', '--delete', 'refs/remotes/origin/HEAD'], { gitDir: dir });
      run(['symbolic-ref', 'HEAD', 'refs/heads/main'], { gitDir: dir });
      run(['update-ref', '-d', 'refs/heads/side'], { gitDir: dir });
    });

    it('an empty repository lists nothing, without git', async () => {
      const empty = path.join(tmp, 'empty.git');
      await initBare(empty, 'main');
      for (const o of [{ all: true }, { rev: 'main' }, { all: true, path: 'x', since: iso(0) }]) {
        const { spawned, result } = await spawnsDuring(() => logCommits(empty, { ...o, skip: 0, limit: 20 }));
        assert.deepEqual([spawned, result], [[], []]);
      }
      closeGitProcesses(empty);
    });
  });
});
