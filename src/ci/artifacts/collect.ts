// A finished job's artifacts, taken from its workspace as the reference runner does:
//  - `paths`: globs (`*` within a directory, `**` across directories, dot files included) or
//    plain paths; a matched directory comes with everything in it;
//  - `exclude`: globs tested against every path found (not recursive: `dir/**` excludes what
//    is in dir, `dir` only the directory entry);
//  - `untracked`: the files git does not track (`git ls-files -o`: .gitignore does not apply);
//  - `$VAR` / `${VAR}` in paths, exclude and name are the job's variables.
// Paths outside the workspace (`../x`, absolute ones elsewhere, through a symlinked directory)
// are refused; symlinks are stored as symlinks, and only when they point inside the workspace.
// Glob walks leave out the workspace's own `.git`.
//
// The archive is a zip written by yazl straight to a file (never whole in memory), with an
// entry for every directory on the way; its metadata (metadata.ts) is written beside it.
// Reports are one artifact per type: `gzip` types (junit, …) one gzip member per file, `raw`
// types (security reports, …) the one file as it is.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import picomatch from 'picomatch';
import yazl from 'yazl';
import { git } from '../../git/git.js';
import type { ArtifactsSpec } from '../config/types.js';
import { appendGzipMember, crc32, openNoFollow } from './gzip.js';
import { writeArchiveMetadata } from './metadata.js';

export interface ArchiveEntry {
  /** Workspace-relative, `/`-separated, no trailing slash. */
  path: string;
  type: 'file' | 'directory' | 'symlink';
  /** Bytes (a symlink: its target's length; a directory: 0). */
  size: number;
  /** st_mode, type bits included. */
  mode: number;
  mtime: Date;
  /** CRC-32 of the content (0 for directories). */
  crc: number;
}

export interface CollectedArchive {
  /** The zip (file_type archive, file_format zip). */
  archivePath: string;
  /** `<name>.zip`, the download name (`artifacts.zip` by default). */
  filename: string;
  size: number;
  /** The reference-format metadata (file_type metadata, file_format gzip, `metadata.gz`). */
  metadataPath: string;
  metadataSize: number;
  entries: ArchiveEntry[];
}

export interface CollectOptions {
  /** Where the archive and metadata files are written; the caller removes it. */
  outDir: string;
  /** The job's variables, for `$VAR` in paths, exclude and name. */
  variables?: Record<string, string>;
}

export interface CollectResult {
  /** null when nothing matched. */
  archive: CollectedArchive | null;
  /** Lines for the job log (matches found, warnings), without newlines. */
  messages: string[];
}

/** `$VAR` and `${VAR}` from `vars` ('' when unset). */
export function expandVariables(text: string, vars: Record<string, string> = {}): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_m, a: string | undefined, b: string | undefined) => vars[(a ?? b)!] ?? '');
}

const inside = (root: string, p: string) => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await fsp.realpath(p);
  } catch {
    return null;
  }
}

class Workspace {
  private constructor(
    readonly root: string,
    readonly realRoot: string,
  ) {}

  static async open(dir: string): Promise<Workspace> {
    const root = path.resolve(dir);
    return new Workspace(root, await fsp.realpath(root));
  }

  /** The pattern relative to the workspace (`/`-separated, cleaned), or null when it points outside. */
  relative(pattern: string): string | null {
    const abs = path.resolve(this.root, pattern);
    if (!inside(this.root, abs)) return null;
    return path.relative(this.root, abs).split(path.sep).join('/');
  }

  abs(rel: string): string {
    return rel ? path.join(this.root, ...rel.split('/')) : this.root;
  }

  /** True when the directory holding `rel` really is in the workspace (no symlinked directory on the way out). */
  async parentInside(rel: string): Promise<boolean> {
    const real = await realpathOrNull(path.dirname(this.abs(rel)));
    return real !== null && inside(this.realRoot, real);
  }

  /** A symlink's target, when it resolves inside the workspace; else null. */
  async symlinkInside(rel: string): Promise<string | null> {
    const abs = this.abs(rel);
    const target = await fsp.readlink(abs);
    const dirReal = await realpathOrNull(path.dirname(abs));
    if (dirReal === null) return null;
    const lexical = path.resolve(dirReal, target);
    if (!inside(this.realRoot, lexical)) return null;
    const real = await realpathOrNull(lexical);
    return real === null || inside(this.realRoot, real) ? target : null;
  }
}

interface Found {
  rel: string;
  stat: fs.Stats;
}

/** Every path under `rel` (not following symlinks), depth first, `rel` itself not included. */
async function* walk(ws: Workspace, rel: string, skipGit: boolean): AsyncGenerator<Found> {
  let names: string[];
  try {
    names = (await fsp.readdir(ws.abs(rel))).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (skipGit && rel === '' && name === '.git') continue;
    const child = rel ? `${rel}/${name}` : name;
    let stat: fs.Stats;
    try {
      stat = await fsp.lstat(ws.abs(child));
    } catch {
      continue;
    }
    yield { rel: child, stat };
    if (stat.isDirectory()) yield* walk(ws, child, skipGit);
  }
}

/** The paths one `paths` pattern names (before directories are expanded). */
async function matchPattern(ws: Workspace, rel: string): Promise<Found[]> {
  const scan = picomatch.scan(rel);
  if (!scan.isGlob) {
    if (!(await ws.parentInside(rel))) return [];
    const stat = await fsp.lstat(ws.abs(rel)).catch(() => null);
    return stat ? [{ rel, stat }] : [];
  }
  const base = scan.base;
  if (base) {
    const real = await realpathOrNull(ws.abs(base));
    if (real === null || !inside(ws.realRoot, real)) return [];
  }
  const isMatch = picomatch(rel, { dot: true });
  const out: Found[] = [];
  if (base && isMatch(base)) {
    const stat = await fsp.lstat(ws.abs(base)).catch(() => null);
    if (stat) out.push({ rel: base, stat });
  }
  for await (const f of walk(ws, base, true)) if (isMatch(f.rel)) out.push(f);
  return out;
}

/** Collects entries, applying exclusions and the symlink rule; counts per source. */
class EntrySet {
  readonly entries = new Map<string, { found: Found; linkTarget: string | null }>();
  readonly warnings: string[] = [];

  constructor(
    private readonly ws: Workspace,
    private readonly excluded: (rel: string) => boolean,
    private readonly filesOnly: boolean,
  ) {}

  /** Adds one path (and, for a directory, what is in it); returns [added, excluded]. */
  async add(f: Found): Promise<[number, number]> {
    let added = 0;
    let excluded = 0;
    const one = async (x: Found) => {
      if (this.entries.has(x.rel)) return;
      if (this.excluded(x.rel)) {
        excluded++;
        return;
      }
      if (x.stat.isSymbolicLink()) {
        const target = await this.ws.symlinkInside(x.rel);
        if (target === null) {
          this.warnings.push(`WARNING: ${x.rel}: symbolic link points outside the build directory: skipped`);
          return;
        }
        if (this.filesOnly) return;
        this.entries.set(x.rel, { found: x, linkTarget: target });
      } else if (x.stat.isDirectory()) {
        if (!this.filesOnly) this.entries.set(x.rel, { found: x, linkTarget: null });
      } else if (x.stat.isFile()) {
        this.entries.set(x.rel, { found: x, linkTarget: null });
      } else {
        return; // sockets, fifos, devices
      }
      added++;
    };
    if (f.rel !== '') await one(f);
    if (f.stat.isDirectory()) {
      for await (const x of walk(this.ws, f.rel, f.rel === '')) await one(x);
    }
    return [added, excluded];
  }
}

function excluder(ws: Workspace, patterns: string[]): (rel: string) => boolean {
  const matchers = patterns.map((p) => ws.relative(p)).filter((p): p is string => p !== null && p !== '').map((p) => picomatch(p, { dot: true }));
  return (rel) => matchers.some((m) => m(rel));
}

/** Adds the `paths` patterns to `set`; log lines into `messages`. */
async function addPatterns(ws: Workspace, set: EntrySet, patterns: string[], messages: string[]): Promise<void> {
  for (const pattern of patterns) {
    const rel = ws.relative(pattern);
    if (rel === null) {
      messages.push(`WARNING: ${pattern}: not supported: outside build directory`);
      continue;
    }
    const matches = await matchPattern(ws, rel);
    if (matches.length === 0) {
      messages.push(`WARNING: ${pattern}: no matching files. Ensure that the artifact path is relative to the working directory`);
      continue;
    }
    let added = 0;
    let excluded = 0;
    for (const m of matches) {
      const [a, e] = await set.add(m);
      added += a;
      excluded += e;
    }
    messages.push(`${pattern}: found ${added} matching files and directories`);
    if (excluded) messages.push(`${pattern}: excluded ${excluded} files`);
  }
}

async function addUntracked(ws: Workspace, set: EntrySet, messages: string[]): Promise<void> {
  let listing: string;
  try {
    listing = (await git(['ls-files', '-o', '-z'], { cwd: ws.root })).stdout.toString('utf8');
  } catch {
    messages.push('WARNING: untracked: the build directory is not a git repository');
    return;
  }
  let added = 0;
  for (const rel of listing.split('\0').filter(Boolean)) {
    if (!(await ws.parentInside(rel))) continue;
    const stat = await fsp.lstat(ws.abs(rel)).catch(() => null);
    if (stat) added += (await set.add({ rel, stat }))[0];
  }
  messages.push(`untracked: found ${added} files`);
}

/** Adds the directories on the way to each entry that are not entries themselves. */
async function withParents(ws: Workspace, set: EntrySet): Promise<string[]> {
  for (const rel of [...set.entries.keys()]) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (set.entries.has(dir)) continue;
      const stat = await fsp.stat(ws.abs(dir)); // a symlinked directory on a named path: its target (checked inside)
      set.entries.set(dir, { found: { rel: dir, stat }, linkTarget: null });
    }
  }
  return [...set.entries.keys()].sort();
}

/**
 * Writes the job's artifacts archive (and its metadata) for `spec` from `workspace` into
 * opts.outDir. `archive` is null when nothing matched (the messages then end with
 * "ERROR: No files to upload").
 */
export async function collectArtifacts(workspace: string, spec: ArtifactsSpec, opts: CollectOptions): Promise<CollectResult> {
  const ws = await Workspace.open(workspace);
  const vars = opts.variables ?? {};
  const messages: string[] = [];
  const set = new EntrySet(ws, excluder(ws, spec.exclude.map((p) => expandVariables(p, vars))), false);
  await addPatterns(ws, set, spec.paths.map((p) => expandVariables(p, vars)), messages);
  if (spec.untracked) await addUntracked(ws, set, messages);
  messages.push(...set.warnings);
  if (set.entries.size === 0) {
    messages.push('ERROR: No files to upload');
    return { archive: null, messages };
  }
  const names = await withParents(ws, set);

  await fsp.mkdir(opts.outDir, { recursive: true });
  const archivePath = path.join(opts.outDir, 'artifacts.zip');
  const zip = new yazl.ZipFile();
  const out = fs.createWriteStream(archivePath, { mode: 0o600 });
  const done = finished(out);
  let failure: unknown = null;
  zip.on('error', (e) => {
    failure = e;
    out.destroy(e as Error);
  });
  zip.outputStream.pipe(out);

  const entries: ArchiveEntry[] = [];
  for (const rel of names) {
    const { found, linkTarget } = set.entries.get(rel)!;
    const { stat } = found;
    const entry: ArchiveEntry = { path: rel, type: 'file', size: 0, mode: stat.mode, mtime: stat.mtime, crc: 0 };
    entries.push(entry);
    if (linkTarget !== null) {
      const data = Buffer.from(linkTarget);
      Object.assign(entry, { type: 'symlink', size: data.length, crc: crc32(data) });
      zip.addBuffer(data, rel, { mtime: stat.mtime, mode: stat.mode, compress: false });
    } else if (stat.isDirectory()) {
      entry.type = 'directory';
      zip.addEmptyDirectory(rel, { mtime: stat.mtime, mode: stat.mode });
    } else {
      entry.size = stat.size;
      zip.addReadStreamLazy(rel, { mtime: stat.mtime, mode: stat.mode, size: stat.size }, (cb) => {
        const counter = new Transform({
          transform(chunk: Buffer, _enc, next) {
            entry.crc = crc32(chunk, entry.crc);
            next(null, chunk);
          },
        });
        openNoFollow(ws.abs(rel)).then(
          (source) => {
            source.on('error', (e) => zip.emit('error', e));
            cb(null, source.pipe(counter));
          },
          (e) => zip.emit('error', e),
        );
      });
    }
  }
  zip.end();
  try {
    await done;
  } catch (e) {
    throw failure ?? e;
  }
  if (failure) throw failure;

  const metadataPath = path.join(opts.outDir, 'metadata.gz');
  const metadataSize = await writeArchiveMetadata(metadataPath, entries);
  const name = spec.name ? expandVariables(spec.name, vars) : '';
  return {
    archive: {
      archivePath,
      filename: `${name || 'artifacts'}.zip`,
      size: (await fsp.stat(archivePath)).size,
      metadataPath,
      metadataSize,
      entries,
    },
    messages,
  };
}

/** How each report type is stored (the reference's file formats and default file names). */
export const REPORT_FORMATS: Record<string, { format: 'gzip' | 'raw'; filename: string }> = {
  junit: { format: 'gzip', filename: 'junit.xml.gz' },
  metrics: { format: 'gzip', filename: 'metrics.txt.gz' },
  dotenv: { format: 'gzip', filename: '.env.gz' },
  cobertura: { format: 'gzip', filename: 'cobertura-coverage.xml.gz' },
  coverage_report: { format: 'gzip', filename: 'cobertura-coverage.xml.gz' },
  sast: { format: 'raw', filename: 'gl-sast-report.json' },
  secret_detection: { format: 'raw', filename: 'gl-secret-detection-report.json' },
  dependency_scanning: { format: 'raw', filename: 'gl-dependency-scanning-report.json' },
  container_scanning: { format: 'raw', filename: 'gl-container-scanning-report.json' },
  cluster_image_scanning: { format: 'raw', filename: 'gl-cluster-image-scanning-report.json' },
  dast: { format: 'raw', filename: 'gl-dast-report.json' },
  license_scanning: { format: 'raw', filename: 'gl-license-scanning-report.json' },
  codequality: { format: 'raw', filename: 'gl-code-quality-report.json' },
  performance: { format: 'raw', filename: 'performance.json' },
  browser_performance: { format: 'raw', filename: 'browser-performance.json' },
  load_performance: { format: 'raw', filename: 'load-performance.json' },
  terraform: { format: 'raw', filename: 'tfplan.json' },
  accessibility: { format: 'raw', filename: 'gl-accessibility.json' },
  requirements: { format: 'raw', filename: 'requirements.json' },
  coverage_fuzzing: { format: 'raw', filename: 'gl-coverage-fuzzing.json' },
  api_fuzzing: { format: 'raw', filename: 'gl-api-fuzzing-report.json' },
};

export interface CollectedReport {
  /** The report type: the artifact's file_type. */
  fileType: string;
  fileFormat: 'gzip' | 'raw';
  /** The artifact's file name (`junit.xml.gz`; a raw report keeps its own name). */
  filename: string;
  path: string;
  size: number;
  /** The workspace files it holds, in order. */
  files: string[];
}

/**
 * One artifact per report type from `reports` (type → paths/globs), written into opts.outDir.
 * Types with no matching file are left out (with a warning line).
 */
export async function collectReports(
  workspace: string,
  reports: Record<string, string[]>,
  opts: CollectOptions,
): Promise<{ reports: CollectedReport[]; messages: string[] }> {
  const ws = await Workspace.open(workspace);
  const vars = opts.variables ?? {};
  const messages: string[] = [];
  const collected: CollectedReport[] = [];
  await fsp.mkdir(opts.outDir, { recursive: true });
  for (const [type, patterns] of Object.entries(reports)) {
    if (!/^[a-z_]+$/.test(type)) continue;
    const set = new EntrySet(ws, () => false, true);
    await addPatterns(ws, set, patterns.map((p) => expandVariables(p, vars)), messages);
    messages.push(...set.warnings);
    const files = [...set.entries.keys()];
    if (files.length === 0) continue;
    const kind = REPORT_FORMATS[type] ?? { format: 'gzip' as const, filename: `${type}.gz` };
    const outPath = path.join(opts.outDir, `report-${type}`);
    if (kind.format === 'raw') {
      if (files.length > 1) messages.push(`WARNING: ${type}: only one file can be sent as raw; using ${files[0]}`);
      await pipeline(await openNoFollow(ws.abs(files[0]!)), fs.createWriteStream(outPath, { mode: 0o600 }));
      collected.push({ fileType: type, fileFormat: 'raw', filename: path.posix.basename(files[0]!), path: outPath, size: (await fsp.stat(outPath)).size, files: [files[0]!] });
    } else {
      const out = fs.createWriteStream(outPath, { mode: 0o600 });
      const done = finished(out);
      try {
        for (const rel of files) await appendGzipMember(out, ws.abs(rel), rel, set.entries.get(rel)!.found.stat.mtime);
      } finally {
        out.end();
      }
      await done;
      collected.push({ fileType: type, fileFormat: 'gzip', filename: kind.filename, path: outPath, size: (await fsp.stat(outPath)).size, files });
    }
  }
  return { reports: collected, messages };
}
