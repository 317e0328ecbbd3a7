// Changelogs as the reference generates them: the commits since the previous release that carry a
// trailer (`Changelog: added`), grouped by its value, rendered under `## <version> (<date>)`; and,
// with POST, committed into the changelog file on a branch, in version order among the releases
// already there. The template is the reference's default; categories and tag_regex come from the
// repository's changelog config file, as there.
import { parse as parseYaml } from 'yaml';
import type { Container } from '../context.js';
import { commitsWithTrailer, tagTargets } from '../../git/history.js';
import { lastCommitFor } from '../../git/log.js';
import { readBlob, blobAt, readCommit } from '../../git/objects.js';

import { nowDate } from '../../shared/clock.js';
import type { Actor } from '../auth/actor.js';
import { apiError, forbidden, invalidParams } from '../errors.js';
import { canPushCode } from '../projects/policy.js';
import { commitActions, ensureCanPushToBranch, readableRepository, type RepositoryRef } from './commits.js';

export const DEFAULT_TRAILER = 'Changelog';
export const DEFAULT_CHANGELOG_FILE = 'CHANGELOG.md';
/** Where the reference reads a project's changelog settings. */
const CONFIG_FILE = '.gitlab/changelog_config.yml';

/** A semantic version, with an optional leading `v` (the reference's version and tag patterns). */
const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

interface Version {
  parts: [number, number, number];
  pre: string | null;
}

const parseVersion = (v: string): Version | null => {
  const m = SEMVER.exec(v);
  return m ? { parts: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? null } : null;
};

/** Semantic version order: numbers, then a pre-release before its release. */
function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.parts[i] !== b.parts[i]) return a.parts[i] - b.parts[i];
  if (a.pre === b.pre) return 0;
  if (a.pre === null) return 1;
  if (b.pre === null) return -1;
  return a.pre < b.pre ? -1 : 1;
}

export interface ChangelogInput {
  version: string;
  from?: string;
  to?: string;
  date?: string;
  trailer?: string;
  config_file?: string;
}

export interface CommitChangelogInput extends ChangelogInput {
  branch?: string;
  file?: string;
  message?: string;
}

interface Config {
  categories: Record<string, string>;
  tagRegex: RegExp | null;
}

const failed = (why: string) => apiError(`Failed to generate the changelog: ${why}`, 422);

async function readConfig(repo: RepositoryRef, path: string): Promise<Config> {
  const head = repo.row.default_branch ? await readCommit(repo.dir, repo.row.default_branch) : null;
  const blob = head && !path.includes('\0') ? await blobAt(repo.dir, head.id, path) : null;
  if (!blob) return { categories: {}, tagRegex: null };
  let doc: unknown;
  try {
    doc = parseYaml((await readBlob(repo.dir, blob.sha)).toString('utf8'));
  } catch (e) {
    throw failed((e as Error).message);
  }
  const o = (doc && typeof doc === 'object' ? doc : {}) as Record<string, unknown>;
  if (o.categories !== undefined && (o.categories === null || typeof o.categories !== 'object' || Array.isArray(o.categories))) {
    throw failed('The "categories" configuration key must be a Hash');
  }
  let tagRegex: RegExp | null = null;
  if (typeof o.tag_regex === 'string') {
    try {
      tagRegex = new RegExp(o.tag_regex.replace(/\(\?P</g, '(?<'));
    } catch {
      throw failed('The "tag_regex" configuration key is not a valid regular expression');
    }
  }
  return { categories: Object.fromEntries(Object.entries((o.categories ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)])), tagRegex };
}

/** The newest release tag older than `version` (pre-releases skipped), as the reference's tag finder picks it. */
async function previousTag(repo: RepositoryRef, version: Version, config: Config): Promise<string | null> {
  let best: { v: Version; target: string } | null = null;
  for (const tag of await tagTargets(repo.dir)) {
    if (config.tagRegex && !config.tagRegex.test(tag.name)) continue;
    const v = parseVersion(config.tagRegex ? tag.name.replace(/^[^0-9]*/, '') : tag.name);
    if (!v || v.pre !== null || compareVersions(v, version) >= 0) continue;
    if (!best || compareVersions(v, best.v) > 0) best = { v, target: tag.commit };
  }
  return best?.target ?? null;
}

const two = (n: number) => String(n).padStart(2, '0');

/** The markdown of one release, the reference's default template under its fixed header. */
async function releaseMarkdown(repo: RepositoryRef, input: ChangelogInput, branch: string): Promise<string> {
  const version = parseVersion(input.version);
  if (!version) throw invalidParams('version is invalid');
  const config = await readConfig(repo, input.config_file || CONFIG_FILE);
  const to = input.to || branch;
  const toCommit = await readCommit(repo.dir, to);
  if (!toCommit) throw failed(`The ref ${to} does not exist`);
  let from: string | null = null;
  if (input.from) {
    const c = await readCommit(repo.dir, input.from);
    if (!c) throw failed(`The ref ${input.from} does not exist`);
    from = c.id;
  } else {
    from = await previousTag(repo, version, config);
    if (!from) throw failed('The commit start range is unspecified, and no previous tag could be found to use instead');
  }
  const commits = await commitsWithTrailer(repo.dir, from, toCommit.id, input.trailer || DEFAULT_TRAILER);
  const reverted = new Set(commits.flatMap((c) => (c.reverts ? [c.reverts] : [])));
  // categories in the config's order first, then as they come
  const groups = new Map<string, string[]>(Object.values(config.categories).map((t) => [t, []]));
  for (const c of commits) {
    if (c.trailer === '' || reverted.has(c.id)) continue;
    const title = config.categories[c.trailer] ?? c.trailer;
    const entries = groups.get(title) ?? [];
    entries.push(`- [${c.title}](${repo.row.full_path}@${c.id})`);
    groups.set(title, entries);
  }
  const sections = [...groups].filter(([, e]) => e.length > 0).map(([title, e]) => `### ${title} (${e.length === 1 ? '1 change' : `${e.length} changes`})\n\n${e.join('\n')}`);
  const d = input.date ? new Date(input.date) : nowDate();
  if (Number.isNaN(d.getTime())) throw invalidParams('date is invalid');
  const date = `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
  return `## ${input.version} (${date})\n\n${sections.length ? sections.join('\n\n') : 'No changes.'}\n\n`;
}

/** GET …/repository/changelog: the release's section, not committed. */
export async function generateChangelog(c: Container, actor: Actor | null, idOrPath: number | string, input: ChangelogInput): Promise<{ notes: string }> {
  const repo = await readableRepository(c, actor, idOrPath);
  return { notes: await releaseMarkdown(repo, input, repo.row.default_branch || 'main') };
}

const HEADER = /^##\s*(\S+)/;

/** The changelog with the release inserted before the first older release (else at the end). */
function insertRelease(content: string, version: string, markdown: string): string {
  const v = parseVersion(version)!;
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = HEADER.exec(lines[i]);
    const other = m ? parseVersion(m[1]) : null;
    if (other && compareVersions(other, v) < 0) return [...lines.slice(0, i), ...markdown.replace(/\n+$/, '\n').split('\n'), ...lines.slice(i)].join('\n');
  }
  if (content.trim() === '') return markdown;
  return `${content.replace(/\n*$/, '\n\n')}${markdown}`;
}

/** POST …/repository/changelog: the release's section committed into the changelog file (once per version). */
export async function commitChangelog(c: Container, actor: Actor, idOrPath: number | string, input: CommitChangelogInput): Promise<void> {
  const repo = await readableRepository(c, actor, idOrPath);
  const branch = input.branch || repo.row.default_branch || 'main';
  const refusal = forbidden('You are not allowed to commit a changelog on this branch');
  if (!canPushCode(repo.row, repo.access)) throw refusal;
  await ensureCanPushToBranch(c, actor, repo, branch).catch(() => {
    throw refusal; // the only refusal it makes, in this endpoint's words
  });
  const markdown = await releaseMarkdown(repo, { ...input, to: input.to || branch }, branch);
  const file = input.file || DEFAULT_CHANGELOG_FILE;
  const head = await readCommit(repo.dir, `refs/heads/${branch}`);
  if (!head) throw failed(`The branch ${branch} does not exist`);
  const blob = await blobAt(repo.dir, head.id, file);
  const content = blob ? (await readBlob(repo.dir, blob.sha)).toString('utf8') : null;
  // already there (another call added it): nothing to commit
  if (content !== null && new RegExp(`^##\\s*${input.version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').test(content)) return;
  await commitActions(c, actor, repo, {
    branch,
    message: input.message || `Add changelog for version ${input.version}`,
    actions: [
      {
        action: content === null ? 'create' : 'update',
        filePath: file,
        content: Buffer.from(insertRelease(content ?? '', input.version, markdown), 'utf8'),
        lastCommitId: blob ? ((await lastCommitFor(repo.dir, head.id, file)) ?? undefined) : undefined,
      },
    ],
  });
}
