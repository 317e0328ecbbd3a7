// Job artifacts from a workspace (src/ci/artifacts/*): the zip archive, its metadata, report
// files. No database involved, so this runs once rather than per dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { collectArtifacts, collectReports, expandVariables } from '../../src/ci/artifacts/collect.js';
import { crc32, gunzipMembers } from '../../src/ci/artifacts/gzip.js';
import { readArchiveMetadata } from '../../src/ci/artifacts/metadata.js';
import type { ArtifactsSpec } from '../../src/ci/config/types.js';
import { parseJunit } from '../../src/ci/reports/junit.js';

interface ZipItem {
  mode: number;
  crc: number;
  data: Buffer;
}

/** A small zip reader (central directory + inflate), to check what was written. */
function readZip(file: string): Map<string, ZipItem> {
  const buf = fs.readFileSync(file);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let off = buf.readUInt32LE(eocd + 16);
  const items = new Map<string, ZipItem>();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(off), 0x02014b50);
    const method = buf.readUInt16LE(off + 10);
    const crc = buf.readUInt32LE(off + 16);
    const csize = buf.readUInt32LE(off + 20);
    const nameLen = buf.readUInt16LE(off + 28);
    const extraLen = buf.readUInt16LE(off + 30);
    const commentLen = buf.readUInt16LE(off + 32);
    const mode = buf.readUInt32LE(off + 38) >>> 16;
    const local = buf.readUInt32LE(off + 42);
    const name = buf.subarray(off + 46, off + 46 + nameLen).toString('utf8');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + csize);
    items.set(name, { mode, crc, data: method === 8 ? zlib.inflateRawSync(raw) : Buffer.from(raw) });
    off += 46 + nameLen + extraLen + commentLen;
  }
  return items;
}

const spec = (over: Partial<ArtifactsSpec>): ArtifactsSpec => ({
  paths: [],
  exclude: [],
  name: null,
  expireIn: null,
  when: 'on_success',
  untracked: false,
  reports: {},
  ...over,
});

let tmp: string;
let ws: string;
let outside: string;
let outCount = 0;
const outDir = () => path.join(tmp, `out-${++outCount}`);

function write(rel: string, content: string, mode = 0o644) {
  const p = path.join(ws, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content, { mode });
}

function git(...args: string[]) {
  const r = spawnSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], {
    cwd: ws,
    encoding: 'utf8',
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: tmp, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  if (r.status !== 0) throw new Error(r.stderr);
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-artifacts-test-'));
  ws = path.join(tmp, 'ws');
  outside = path.join(tmp, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  fs.mkdirSync(ws);
  git('init', '-q', '-b', 'main');
  write('README.md', 'readme');
  write('.gitignore', 'build/\n*.log\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  write('build/app.bin', 'binary', 0o755);
  write('build/sub/data.txt', 'data');
  write('build/sub/.hidden', 'hidden');
  write('build/tmp/a.tmp', 'tmp');
  write('test.log', 'log line');
  write('deep/x/y/z.txt', 'zzz');
  write('reports/a.xml', '<testsuite name="a"><testcase name="one"/></testsuite>');
  write('reports/b.xml', '<testsuite name="b"><testcase name="two"><failure>bad</failure></testcase></testsuite>');
  write('gl-sast-report.json', '{"version":"15.0.0","vulnerabilities":[]}');
  fs.symlinkSync(outside, path.join(ws, 'link-out'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'build', 'secret-link'));
  fs.symlinkSync('sub/data.txt', path.join(ws, 'build', 'inner-link'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('collectArtifacts', () => {
  it('archives directories recursively with their parents, file modes and content', async () => {
    const r = await collectArtifacts(ws, spec({ paths: ['build/sub/', 'README.md'] }), { outDir: outDir() });
    assert.ok(r.archive);
    const zip = readZip(r.archive.archivePath);
    assert.deepEqual([...zip.keys()], ['README.md', 'build/', 'build/sub/', 'build/sub/.hidden', 'build/sub/data.txt']);
    assert.equal(zip.get('build/sub/data.txt')!.data.toString(), 'data');
    assert.equal(zip.get('build/sub/data.txt')!.crc, crc32(Buffer.from('data')));
    assert.equal(r.archive.filename, 'artifacts.zip');
    assert.equal(r.archive.size, fs.statSync(r.archive.archivePath).size);
    assert.deepEqual(
      r.archive.entries.map((e) => [e.path, e.type, e.size]),
      [
        ['README.md', 'file', 6],
        ['build', 'directory', 0],
        ['build/sub', 'directory', 0],
        ['build/sub/.hidden', 'file', 6],
        ['build/sub/data.txt', 'file', 4],
      ],
    );
    assert.ok(r.messages.includes('build/sub/: found 3 matching files and directories'), r.messages.join('\n'));
  });

  it('matches globs: * within a directory, ** across, dot files included; keeps modes', async () => {
    const r = await collectArtifacts(ws, spec({ paths: ['*.log', '**/*.txt', 'build/*.bin'] }), { outDir: outDir() });
    const names = [...readZip(r.archive!.archivePath).keys()];
    assert.ok(names.includes('test.log'));
    assert.ok(names.includes('deep/x/y/z.txt'));
    assert.ok(names.includes('build/sub/data.txt'));
    assert.ok(names.includes('build/app.bin'));
    assert.ok(!names.includes('README.md'));
    assert.ok(!names.some((n) => n.startsWith('.git/')), 'the workspace .git is left out of glob walks');
    assert.ok(!names.includes('link-out/secret.txt'));
    assert.equal(readZip(r.archive!.archivePath).get('build/app.bin')!.mode & 0o777, 0o755);
  });

  it('leaves out what exclude matches, non-recursively', async () => {
    const r = await collectArtifacts(ws, spec({ paths: ['build/'], exclude: ['build/tmp/**', 'build/**/.hidden', 'build/*-link'] }), { outDir: outDir() });
    const names = [...readZip(r.archive!.archivePath).keys()];
    assert.ok(!names.includes('build/tmp/a.tmp'));
    assert.ok(!names.includes('build/sub/.hidden'));
    assert.ok(names.includes('build/sub/data.txt'));
    assert.ok(r.messages.some((m) => /^build\/: excluded \d+ files$/.test(m)), r.messages.join('\n'));
    const onlyDir = await collectArtifacts(ws, spec({ paths: ['build/'], exclude: ['build/tmp'] }), { outDir: outDir() });
    assert.ok([...readZip(onlyDir.archive!.archivePath).keys()].includes('build/tmp/a.tmp'), 'excluding a directory does not exclude its files');
  });

  it('stores symlinks that stay inside as links, skips those pointing out', async () => {
    const r = await collectArtifacts(ws, spec({ paths: ['build/'] }), { outDir: outDir() });
    const zip = readZip(r.archive!.archivePath);
    assert.ok(!zip.has('build/secret-link'));
    assert.ok(r.messages.some((m) => m.startsWith('WARNING: build/secret-link: ')));
    const link = zip.get('build/inner-link')!;
    assert.equal(link.mode & 0o170000, 0o120000);
    assert.equal(link.data.toString(), 'sub/data.txt');
    assert.ok(![...zip.values()].some((i) => i.data.toString().includes('top secret')));
  });

  it('refuses paths outside the workspace, and directories reached through a symlink out', async () => {
    const r = await collectArtifacts(ws, spec({ paths: ['../outside/secret.txt', path.join(outside, 'secret.txt'), 'link-out/', 'link-out/*', 'link-out/secret.txt'] }), {
      outDir: outDir(),
    });
    assert.equal(r.archive, null);
    assert.ok(r.messages.includes('WARNING: ../outside/secret.txt: not supported: outside build directory'), r.messages.join('\n'));
    assert.ok(r.messages.includes(`WARNING: ${path.join(outside, 'secret.txt')}: not supported: outside build directory`));
    assert.equal(r.messages.at(-1), 'ERROR: No files to upload');
    const inside = await collectArtifacts(ws, spec({ paths: [path.join(ws, 'README.md')] }), { outDir: outDir() });
    assert.deepEqual([...readZip(inside.archive!.archivePath).keys()], ['README.md'], 'an absolute path inside is fine');
  });

  it('warns about patterns that match nothing and gives no archive when nothing matched', async () => {
    const r = await collectArtifacts(ws, spec({ paths: ['missing/', 'nope-*.txt'] }), { outDir: outDir() });
    assert.equal(r.archive, null);
    assert.deepEqual(r.messages, [
      'WARNING: missing/: no matching files. Ensure that the artifact path is relative to the working directory',
      'WARNING: nope-*.txt: no matching files. Ensure that the artifact path is relative to the working directory',
      'ERROR: No files to upload',
    ]);
  });

  it('adds untracked files, ignored ones included, tracked ones not', async () => {
    const r = await collectArtifacts(ws, spec({ untracked: true, exclude: ['build/tmp/**'] }), { outDir: outDir() });
    const names = [...readZip(r.archive!.archivePath).keys()];
    assert.ok(names.includes('test.log'), 'ignored by .gitignore, still untracked');
    assert.ok(names.includes('build/sub/data.txt'));
    assert.ok(names.includes('deep/x/y/z.txt'));
    assert.ok(!names.includes('README.md'), 'tracked');
    assert.ok(!names.includes('.gitignore'), 'tracked');
    assert.ok(!names.includes('build/tmp/a.tmp'), 'excluded');
    assert.ok(r.messages.some((m) => /^untracked: found \d+ files$/.test(m)));
  });

  it('expands variables in paths, exclude and name', async () => {
    const variables = { DIR: 'deep', CI_JOB_NAME: 'build-job' };
    const r = await collectArtifacts(ws, spec({ paths: ['$DIR/x/'], exclude: ['${DIR}/x/y/none'], name: 'out-$CI_JOB_NAME' }), { outDir: outDir(), variables });
    assert.deepEqual([...readZip(r.archive!.archivePath).keys()], ['deep/', 'deep/x/', 'deep/x/y/', 'deep/x/y/z.txt']);
    assert.equal(r.archive!.filename, 'out-build-job.zip');
    assert.equal(expandVariables('a/$X/${Y}/$UNSET/b', { X: '1', Y: '2' }), 'a/1/2//b');
  });

  it('writes the metadata in the reference format, directories first', async () => {
    const r = await collectArtifacts(ws, spec({ paths: ['deep/x/y/z.txt', 'build/app.bin'] }), { outDir: outDir() });
    const gz = fs.readFileSync(r.archive!.metadataPath);
    assert.equal(r.archive!.metadataSize, gz.length);
    const raw = zlib.gunzipSync(gz);
    assert.equal(raw.readUInt32BE(0), 38);
    assert.equal(raw.subarray(4, 42).toString(), 'GitLab Build Artifacts Metadata 0.0.2\n');
    const entries = readArchiveMetadata(gz);
    assert.deepEqual(
      entries.map((e) => e.path),
      ['build/', 'build/app.bin', 'deep/', 'deep/x/', 'deep/x/y/', 'deep/x/y/z.txt'],
    );
    const z = entries.find((e) => e.path === 'deep/x/y/z.txt')!;
    assert.equal(z.size, 3);
    assert.equal(z.mode, '644');
    assert.equal(z.crc, readZip(r.archive!.archivePath).get('deep/x/y/z.txt')!.crc);
    assert.equal(entries.find((e) => e.path === 'build/app.bin')!.mode, '755');
    assert.ok(Math.abs(z.modified - fs.statSync(path.join(ws, 'deep/x/y/z.txt')).mtimeMs / 1000) < 2);
    assert.throws(() => readArchiveMetadata(zlib.gzipSync(Buffer.from('nonsense'))));
  });
});

describe('collectReports', () => {
  it('puts each junit file in its own gzip member of junit.xml.gz', async () => {
    const r = await collectReports(ws, { junit: ['reports/*.xml'] }, { outDir: outDir() });
    assert.equal(r.reports.length, 1);
    const junit = r.reports[0]!;
    assert.deepEqual([junit.fileType, junit.fileFormat, junit.filename], ['junit', 'gzip', 'junit.xml.gz']);
    assert.deepEqual(junit.files, ['reports/a.xml', 'reports/b.xml']);
    const gz = fs.readFileSync(junit.path);
    assert.equal(junit.size, gz.length);
    const members = gunzipMembers(gz);
    assert.deepEqual(members.map((m) => m.name), ['reports/a.xml', 'reports/b.xml']);
    assert.equal(members[1]!.data.toString(), fs.readFileSync(path.join(ws, 'reports/b.xml'), 'utf8'));
    assert.equal(zlib.gunzipSync(gz).toString(), members.map((m) => m.data.toString()).join(''), 'a standard gzip reader reads it too');
    assert.deepEqual(members.map((m) => parseJunit(m.data.toString()).test_cases[0]!.status), ['success', 'failed']);
  });

  it('keeps a raw report as it is, under its own name; skips types with no file', async () => {
    const r = await collectReports(ws, { sast: ['gl-sast-report.json'], dast: ['missing.json'], dotenv: ['README.md'] }, { outDir: outDir() });
    assert.deepEqual(r.reports.map((x) => x.fileType), ['sast', 'dotenv']);
    assert.deepEqual([r.reports[1]!.fileFormat, r.reports[1]!.filename], ['gzip', '.env.gz']);
    assert.equal(zlib.gunzipSync(fs.readFileSync(r.reports[1]!.path)).toString(), 'readme');
    const sast = r.reports[0]!;
    assert.deepEqual([sast.fileFormat, sast.filename], ['raw', 'gl-sast-report.json']);
    assert.equal(fs.readFileSync(sast.path, 'utf8'), fs.readFileSync(path.join(ws, 'gl-sast-report.json'), 'utf8'));
    assert.ok(r.messages.some((m) => m.startsWith('WARNING: missing.json: no matching files')));
  });

  it('refuses report paths outside the workspace and symlinks pointing out', async () => {
    const r = await collectReports(ws, { junit: ['../outside/secret.txt', 'link-out/secret.txt', 'build/secret-link'] }, { outDir: outDir() });
    assert.deepEqual(r.reports, []);
  });
});

describe('gunzipMembers', () => {
  it('reads plain and multi-member gzip, refuses other data', () => {
    const one = zlib.gzipSync(Buffer.from('first'));
    const two = zlib.gzipSync(Buffer.from('second'));
    assert.deepEqual(gunzipMembers(one).map((m) => [m.name, m.data.toString()]), [[null, 'first']]);
    assert.deepEqual(gunzipMembers(Buffer.concat([one, two])).map((m) => m.data.toString()), ['first', 'second']);
    assert.throws(() => gunzipMembers(Buffer.from('not gzip at all, no')), /not in gzip format/);
  });

  it('crc32 agrees with zlib', () => {
    const data = Buffer.from('The quick brown fox');
    const gz = zlib.gzipSync(data);
    assert.equal(crc32(data), gz.readUInt32LE(gz.length - 8));
    assert.equal(crc32(data.subarray(10), crc32(data.subarray(0, 10))), crc32(data));
  });
});
