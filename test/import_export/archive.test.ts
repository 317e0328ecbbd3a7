// The archive writer and the safe reader, without a database: what the writer makes the reader
// reads back byte for byte; every hostile archive is refused with a clear message and leaves
// nothing on disk.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { ArchiveError, DEFAULT_LIMITS, entryName, readArchive, type ReadLimits } from '../../src/import_export/reader.js';
import { directoryEntries, writeArchive } from '../../src/import_export/writer.js';
import { checkVersion, exportFilename, VersionError } from '../../src/import_export/format.js';
import { NdjsonFormatError, readNdjson, writeNdjson } from '../../src/import_export/ndjson.js';
import { paxPath, rawTar, rawTarGz, type RawEntry } from '../helpers/tar.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-archive-test-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));
let n = 0;
const freshDest = () => path.join(work, `out-${++n}`);

async function refused(archive: Buffer, message: string | RegExp, limits?: Partial<ReadLimits>): Promise<void> {
  const dest = freshDest();
  await assert.rejects(readArchive(() => Readable.from([archive]), dest, { ...DEFAULT_LIMITS, ...limits }), (err: unknown) => {
    assert.ok(err instanceof ArchiveError, `expected an ArchiveError, got ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
  assert.equal(fs.existsSync(dest), false, 'the extraction folder is removed');
}

const ok: RawEntry[] = [{ name: 'VERSION', body: '0.2.4' }];

describe('archive reader: hostile archives are refused', () => {
  const cases: [string, Buffer, string, Partial<ReadLimits>?][] = [
    ['a symbolic link', rawTarGz([...ok, { name: 'tree', type: '2', linkname: '/etc' }]),
      'Archive entry "tree" is a symbolic link; only regular files and directories are allowed'],
    ['a hard link', rawTarGz([...ok, { name: 'project.bundle', type: '1', linkname: '/etc/passwd' }]),
      'Archive entry "project.bundle" is a hard link; only regular files and directories are allowed'],
    ['a character device', rawTarGz([...ok, { name: 'zero', type: '3' }]),
      'Archive entry "zero" is a character device; only regular files and directories are allowed'],
    ['a block device', rawTarGz([...ok, { name: 'sda', type: '4' }]),
      'Archive entry "sda" is a block device; only regular files and directories are allowed'],
    ['a FIFO', rawTarGz([...ok, { name: 'pipe', type: '6' }]),
      'Archive entry "pipe" is a FIFO; only regular files and directories are allowed'],
    ['an absolute path', rawTarGz([...ok, { name: '/tmp/anvil-escape', body: 'x' }]),
      'Archive entry "/tmp/anvil-escape" has an absolute path'],
    ['a leading ..', rawTarGz([...ok, { name: '../escape', body: 'x' }]),
      'Archive entry "../escape" has a ".." path segment'],
    ['a .. inside the path', rawTarGz([...ok, { name: './tree/../../escape', body: 'x' }]),
      'Archive entry "./tree/../../escape" has a ".." path segment'],
    ['a NUL in the name (PAX path)', rawTarGz([...ok, paxPath('tree/a\0b'), { name: 'ignored', body: 'x' }]),
      'Archive entry "tree/a\\u0000b" has a NUL or line break in its name'],
    ['a newline in the name', rawTarGz([...ok, { name: 'tree/a\nb.ndjson', body: 'x' }]),
      'Archive entry "tree/a\\nb.ndjson" has a NUL or line break in its name'],
    ['a backslash in the name', rawTarGz([...ok, { name: '..\\..\\escape', body: 'x' }]),
      'Archive entry "..\\\\..\\\\escape" has a backslash in its name'],
    ['an entry over the per-entry limit', rawTarGz([...ok, { name: 'project.bundle', body: Buffer.alloc(2048) }]),
      'Archive entry "project.bundle" is larger than 1024 bytes', { maxEntryBytes: 1024 }],
    ['entries over the total limit', rawTarGz([...ok, { name: 'a', body: Buffer.alloc(900) }, { name: 'b', body: Buffer.alloc(900) }]),
      'The archive is larger than 1500 bytes uncompressed', { maxTotalBytes: 1500 }],
    ['too many entries', rawTarGz([...ok, ...Array.from({ length: 10 }, (_, i) => ({ name: `f${i}`, body: 'x' }))]),
      'The archive has more than 5 entries', { maxEntries: 5 }],
    ['a compression bomb', zlib.gzipSync(rawTar([...ok, { name: 'bomb', body: Buffer.alloc(8 * 1024 * 1024) }])),
      'The archive expands more than 100 times its compressed size', { maxRatio: 100, ratioFloorBytes: 1024 * 1024 }],
    ['the same file twice', rawTarGz([...ok, { name: 'VERSION', body: '9.9.9' }]),
      'Archive entry "VERSION" appears more than once'],
    ['the same file as ./ and plain', rawTarGz([...ok, { name: './VERSION', body: '9.9.9' }]),
      'Archive entry "./VERSION" appears more than once'],
    ['an entry below a file', rawTarGz([...ok, { name: 'VERSION/x', body: 'x' }]),
      'Archive entry "VERSION/x" is below a file'],
    ['a header that lies about its size (truncated)', zlib.gzipSync(rawTar([...ok, { name: 'big', body: 'x', size: 100_000 }]).subarray(0, 2048)),
      'The file is not a valid tar.gz archive'],
    ['not gzip at all', Buffer.from('just some text, not an archive'), 'The file is not a valid tar.gz archive'],
    ['a truncated gzip stream', rawTarGz(ok).subarray(0, 20), 'The file is not a valid tar.gz archive'],
    ['an empty archive', zlib.gzipSync(Buffer.alloc(1024)), 'The archive is empty'],
  ];
  for (const [what, archive, message, limits] of cases) {
    it(`refuses ${what}`, () => refused(archive, message, limits));
  }

  it('100,001 empty files: refused by the checking pass, before a single file is written', async () => {
    const entries: RawEntry[] = Array.from({ length: DEFAULT_LIMITS.maxEntries + 1 }, (_, i) => ({ name: `f/${i}`, body: '' }));
    const archive = rawTarGz(entries);
    const dest = freshDest();
    let opens = 0;
    await assert.rejects(readArchive(() => { opens += 1; return Readable.from([archive]); }, dest), (err: unknown) =>
      err instanceof ArchiveError && err.message === `The archive has more than ${DEFAULT_LIMITS.maxEntries} entries`);
    // counted first: the writing pass never started, so not one file was written
    assert.equal(opens, 1, 'the writing pass never started');
    assert.equal(fs.existsSync(dest), false);
  });

  it('a refused archive is read once; a good one twice (check, then write)', async () => {
    let opens = 0;
    const open = (archive: Buffer) => () => { opens += 1; return Readable.from([archive]); };
    await assert.rejects(readArchive(open(rawTarGz([...ok, { name: 'a', body: 'x' }, { name: 'l', type: '2', linkname: '/etc' }])), freshDest()), ArchiveError);
    assert.equal(opens, 1);
    opens = 0;
    const dest = freshDest();
    assert.deepEqual((await readArchive(open(rawTarGz([...ok, { name: 'a', body: 'x' }])), dest)).files, ['VERSION', 'a']);
    assert.equal(opens, 2);
    fs.rmSync(dest, { recursive: true });
  });

  it('writes nothing outside its folder for any refused archive', () => {
    assert.equal(fs.existsSync('/tmp/anvil-escape'), false);
    assert.equal(fs.existsSync(path.join(work, 'escape')), false);
    assert.deepEqual(fs.readdirSync(work), []);
  });

  it('refuses a destination that already exists (it must be a fresh folder)', async () => {
    const dest = freshDest();
    fs.mkdirSync(dest);
    await assert.rejects(readArchive(() => Readable.from([rawTarGz(ok)]), dest), /EEXIST/);
    fs.rmSync(dest, { recursive: true });
  });
});

describe('archive reader: names', () => {
  it('reads entries with and without ./ as the same names', async () => {
    const dest = freshDest();
    const r = await readArchive(() => Readable.from([rawTarGz([
      { name: './', type: '5' }, { name: './VERSION', body: '0.2.4' }, { name: 'tree/', type: '5' },
      { name: 'tree/project.json', body: '{}' }, { name: './tree/project/', type: '5' }, { name: './tree/project/labels.ndjson', body: '' },
    ])]), dest);
    assert.deepEqual(r.files, ['VERSION', 'tree/project.json', 'tree/project/labels.ndjson']);
    assert.equal(fs.readFileSync(path.join(dest, 'VERSION'), 'utf8'), '0.2.4');
    assert.equal(fs.readFileSync(path.join(dest, 'tree/project.json'), 'utf8'), '{}');
  });

  it('normalizes names and refuses the hostile ones', () => {
    assert.equal(entryName('./a//b/./c'), 'a/b/c');
    assert.equal(entryName('.'), '');
    assert.throws(() => entryName('a/../b'), ArchiveError);
    assert.throws(() => entryName('x'.repeat(5000)), /too long/);
  });
});

describe('archive writer', () => {
  it('streams a tree the reader reads back byte for byte, named as the reference names them', async () => {
    const src = path.join(work, 'stage');
    fs.mkdirSync(path.join(src, 'tree/project'), { recursive: true });
    fs.writeFileSync(path.join(src, 'VERSION'), '0.2.4');
    fs.writeFileSync(path.join(src, 'tree/project.json'), '{"name":"x"}');
    const big = crypto.randomBytes(3 * 1024 * 1024 + 17);
    fs.writeFileSync(path.join(src, 'project.bundle'), big);
    await writeNdjson(path.join(src, 'tree/project/labels.ndjson'), [{ a: 1 }, { b: 'two' }]);
    const file = path.join(work, 'out.tar.gz');
    await pipeline(writeArchive(directoryEntries(src)), fs.createWriteStream(file));
    fs.rmSync(src, { recursive: true });

    const dest = freshDest();
    const r = await readArchive(() => fs.createReadStream(file), dest);
    assert.deepEqual(r.files.sort(), ['VERSION', 'project.bundle', 'tree/project.json', 'tree/project/labels.ndjson']);
    assert.ok(fs.readFileSync(path.join(dest, 'project.bundle')).equals(big));
    const records = [];
    for await (const x of readNdjson(path.join(dest, 'tree/project/labels.ndjson'))) records.push(x);
    assert.deepEqual(records, [{ line: 0, record: { a: 1 } }, { line: 1, record: { b: 'two' } }]);

    // entry names as `tar -czf … -C dir .` writes them
    const names: string[] = [];
    const tar = (await import('tar-stream')).default;
    const ex = tar.extract();
    const done = pipeline(fs.createReadStream(file), zlib.createGunzip(), ex);
    for await (const e of ex) { names.push(e.header.name); e.resume(); }
    await done;
    assert.deepEqual(names, ['./', './VERSION', './project.bundle', './tree/', './tree/project/', './tree/project/labels.ndjson', './tree/project.json']);
    fs.rmSync(dest, { recursive: true });
    fs.rmSync(file);
  });

  it('fails the stream when a body is shorter than its size', async () => {
    const s = writeArchive([{ type: 'file', name: 'x', size: 10, body: () => Readable.from([Buffer.from('abc')]) }]);
    await assert.rejects(pipeline(s, fs.createWriteStream(path.join(work, 'bad.tar.gz'))));
    fs.rmSync(path.join(work, 'bad.tar.gz'), { force: true });
  });
});

describe('format', () => {
  it('checks VERSION with the reference two messages', () => {
    checkVersion('0.2.4');
    checkVersion('0.2.4\n');
    assert.throws(() => checkVersion('0.1.8'), (e: Error) => e instanceof VersionError && e.message === 'Import version mismatch: Required 0.2.4 but was 0.1.8');
    assert.throws(() => checkVersion('not a version'), { message: 'Incorrect VERSION format' });
    assert.throws(() => checkVersion(null), { message: 'Incorrect VERSION format' });
  });

  it('names the download as the reference does', () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    assert.equal(exportFilename('group/sub/project', at), '2026-01-02_03-04-678_group_sub_project_export.tar.gz');
    const long = exportFilename(`g/${'p'.repeat(80)}`, at);
    assert.equal(long, `2026-01-02_03-04-678_g_${'p'.repeat(51 - 23)}_export.tar.gz`);
  });

  it('refuses a line longer than the cap before holding it whole; reads CRLF and a last line without newline', async () => {
    const f = path.join(work, 'long.ndjson');
    fs.writeFileSync(f, `{"a":1}\r\n{"b":"${'x'.repeat(5000)}"}\n`);
    const seen: number[] = [];
    await assert.rejects(async () => { for await (const r of readNdjson(f, 1024)) seen.push(r.line); }, /is longer than 1024 bytes/);
    assert.deepEqual(seen, [0]);
    fs.writeFileSync(f, '{"a":1}\r\n\n{"b":2}');
    const all = [];
    for await (const r of readNdjson(f)) all.push(r);
    assert.deepEqual(all, [{ line: 0, record: { a: 1 } }, { line: 2, record: { b: 2 } }]);
    fs.rmSync(f);
  });

  it('fails on a line that is not JSON', async () => {
    const f = path.join(work, 'bad.ndjson');
    fs.writeFileSync(f, '{"a":1}\n{nope\n');
    const seen: number[] = [];
    await assert.rejects(async () => { for await (const r of readNdjson(f)) seen.push(r.line); }, NdjsonFormatError);
    assert.deepEqual(seen, [0]);
    fs.rmSync(f);
  });
});
