// Job traces (logs). While a job runs, its output is appended to ci_trace_chunks in pieces —
// flushed at most every second or every 64 KiB — so any node can show the log so far. When the
// job ends the chunks are folded into one blob (`ci/traces/<jobId>.log`, a `trace` artifact:
// format raw, filename job.log, as the reference lists it) and deleted. When each chunk was
// stored is kept beside it (ci_trace_times), fold or not: the web log's time for lines that have
// no time of their own.
import { Readable } from 'node:stream';
import type { Container } from '../context.js';
import { deleteArtifactRow, findJobArtifact, upsertArtifact } from '../../db/repos/ci_artifacts.js';
import { deleteTraceChunks, deleteTraceTimes, insertTraceChunk, lastTraceSeq, traceChunksAfter } from '../../db/repos/ci_traces.js';
import { now } from '../../shared/clock.js';
import { JOB_STREAM, RUNNER_STREAM, stampHeader } from '../../shared/trace_timestamps.js';
import { nowIso } from '../../shared/time.js';

export const TRACE_FLUSH_MS = 1000;
/** Output is flushed at once when this much is waiting; also the largest chunk row. */
export const TRACE_FLUSH_BYTES = 64 * 1024;
/** The runner's `output_limit` default: output past it is dropped (the job keeps running). */
export const TRACE_LIMIT_BYTES = 4 * 1024 * 1024;
/** Chunks read per query when streaming a running job's trace (bounded memory). */
const READ_PAGE = 16;

export const traceBlobKey = (jobId: number): string => `ci/traces/${jobId}.log`;

export interface TraceWriterOptions {
  flushMs?: number;
  flushBytes?: number;
  limitBytes?: number;
  /** Called after each periodic flush (every flushMs, output or not): the runner checks for cancellation here. */
  onTick?: () => Promise<void> | void;
}

/**
 * Appends a running job's output to its trace. write() never waits; the data is stored by the
 * periodic or size-triggered flush (one at a time, in order), and by close().
 */
export class TraceWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private seq = 0;
  /** The trace's length so far (stored): where the next chunk starts. */
  private offset = 0;
  private collected = 0;
  /** Lines get the reference runner's time header (FF_TIMESTAMPS); `atLineStart`: the next byte begins a line. */
  private stamps = false;
  private atLineStart = true;
  private truncated = false;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private closed = false;
  private readonly flushMs: number;
  private readonly flushBytes: number;
  private readonly limitBytes: number;

  private constructor(
    private readonly c: Container,
    readonly jobId: number,
    private readonly opts: TraceWriterOptions,
  ) {
    this.flushMs = opts.flushMs ?? TRACE_FLUSH_MS;
    this.flushBytes = opts.flushBytes ?? TRACE_FLUSH_BYTES;
    this.limitBytes = opts.limitBytes ?? TRACE_LIMIT_BYTES;
  }

  /** A writer that continues after the chunks the job already has. */
  static async open(c: Container, jobId: number, opts: TraceWriterOptions = {}): Promise<TraceWriter> {
    const w = new TraceWriter(c, jobId, opts);
    w.seq = (await lastTraceSeq(c.db, jobId)) + 1;
    w.offset = await traceLength(c, jobId);
    w.timer = setInterval(() => void w.tick(), w.flushMs);
    return w;
  }

  /** The job's output (counted against the output limit). */
  write(data: Buffer | string): void {
    if (this.closed || this.truncated) return;
    let buf = typeof data === 'string' ? Buffer.from(data) : data;
    if (this.collected + buf.length > this.limitBytes) {
      buf = buf.subarray(0, Math.max(0, this.limitBytes - this.collected));
      this.truncated = true;
    }
    this.collected += buf.length;
    this.push(this.stamped(buf, JOB_STREAM));
    if (this.truncated) {
      this.note(`\nJob's log exceeded limit of ${this.limitBytes} bytes.\nJob execution will continue but no more output will be collected.`);
    }
  }

  /** A line of the runner's own (always kept, even past the output limit). */
  note(line: string): void {
    if (!this.closed) this.push(this.stamped(Buffer.from(`${line}\n`), RUNNER_STREAM));
  }

  /** From here on each line starts with its time, as the reference's runner writes it when FF_TIMESTAMPS is on. */
  stampLines(): void {
    this.stamps = true;
  }

  /** `buf` with a time header before each line it begins (a line begun by an earlier write has one already). */
  private stamped(buf: Buffer, stream: number): Buffer {
    if (!this.stamps || buf.length === 0) return buf;
    const header = Buffer.from(stampHeader(now(), stream));
    const parts: Buffer[] = [];
    let from = 0;
    if (this.atLineStart) parts.push(header);
    for (let nl = buf.indexOf(10); nl >= 0 && nl < buf.length - 1; nl = buf.indexOf(10, from)) {
      parts.push(buf.subarray(from, nl + 1), header);
      from = nl + 1;
    }
    parts.push(buf.subarray(from));
    this.atLineStart = buf[buf.length - 1] === 10;
    return Buffer.concat(parts);
  }

  /** Stores what is waiting; resolves when it is in the database. */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => this.store());
    return this.chain;
  }

  /** Stores the rest and stops the periodic flush. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    this.closed = true;
  }

  private push(buf: Buffer): void {
    if (buf.length === 0) return;
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.pendingBytes >= this.flushBytes) void this.flush();
  }

  private async tick(): Promise<void> {
    if (this.ticking) return; // a slow database: skip a beat rather than pile up
    this.ticking = true;
    try {
      await this.flush();
      if (!this.closed && this.timer) await this.opts.onTick?.();
    } catch (err) {
      this.c.log.warn({ err, job: this.jobId }, 'trace tick failed');
    } finally {
      this.ticking = false;
    }
  }

  private async store(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const all = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    for (let off = 0; off < all.length; off += this.flushBytes) {
      const piece = all.subarray(off, off + this.flushBytes);
      try {
        await insertTraceChunk(this.c.db, this.jobId, this.seq, piece, this.offset, nowIso());
        this.seq += 1;
        this.offset += piece.length;
      } catch (err) {
        // Kept for the next flush (the database may be back by then).
        this.c.log.warn({ err, job: this.jobId }, 'storing a trace chunk failed; keeping it for the next flush');
        const rest = all.subarray(off);
        this.pending.unshift(rest);
        this.pendingBytes += rest.length;
        return;
      }
    }
  }
}

/** The trace's length so far: a trace folded before (the job ran again after a crash) and the chunks after it. */
async function traceLength(c: Container, jobId: number): Promise<number> {
  let n = (await findJobArtifact(c.db, jobId, 'trace'))?.size ?? 0;
  for await (const b of chunksOf(c, jobId)) n += b.length;
  return n;
}

async function* chunksOf(c: Container, jobId: number): AsyncGenerator<Buffer> {
  for (let seq = -1; ;) {
    const rows = await traceChunksAfter(c.db, jobId, seq, READ_PAGE);
    for (const r of rows) yield Buffer.from(r.data, 'base64');
    if (rows.length < READ_PAGE) return;
    seq = rows[rows.length - 1].seq;
  }
}

/**
 * Folds a finished job's chunks into its trace blob and artifact row, then deletes the chunks.
 * Idempotent: without chunks it does nothing (already folded, or the job printed nothing).
 */
export async function foldTrace(c: Container, job: { id: number; project_id: number }): Promise<void> {
  const jobId = job.id;
  const first = await traceChunksAfter(c.db, jobId, -1, 1);
  if (first.length === 0) return;
  const key = traceBlobKey(jobId);
  const existing = await findJobArtifact(c.db, jobId, 'trace');
  async function* body(): AsyncGenerator<Buffer> {
    // A trace folded before (the job ran again after a crash) comes first.
    if (existing) {
      const prev = await c.storage.get(existing.blob_key);
      if (prev) for await (const b of prev) yield b as Buffer;
    }
    yield* chunksOf(c, jobId);
  }
  const stat = await c.storage.put(key, Readable.from(body()));
  await upsertArtifact(c.db, {
    job_id: jobId,
    project_id: job.project_id,
    file_type: 'trace',
    file_format: 'raw',
    filename: 'job.log',
    size: stat.size,
    blob_key: key,
    expire_at: null,
    created_at: nowIso(),
  });
  await deleteTraceChunks(c.db, jobId);
}

/** Skips the first `n` bytes of a stream. */
async function* skipBytes(src: Readable, n: number): AsyncGenerator<Buffer> {
  let left = n;
  for await (const chunk of src) {
    const b = chunk as Buffer;
    if (left >= b.length) {
      left -= b.length;
      continue;
    }
    yield left > 0 ? b.subarray(left) : b;
    left = 0;
  }
}

/**
 * The job's log: the trace blob once the job finished, its chunks so far while it runs, null
 * when there is none. Streams with bounded memory. A job that finishes while its chunks are
 * being read continues from the blob (the blob is the chunks, in order), so no part is lost.
 */
export async function readTrace(c: Container, jobId: number): Promise<Readable | null> {
  const blobOf = async (): Promise<Readable | null> => {
    const row = await findJobArtifact(c.db, jobId, 'trace');
    return row ? c.storage.get(row.blob_key) : null;
  };
  const done = await blobOf();
  if (done) return done;
  const rows = await traceChunksAfter(c.db, jobId, -1, READ_PAGE);
  if (rows.length === 0) return blobOf(); // folded in between, or no log at all
  async function* all(): AsyncGenerator<Buffer> {
    let emitted = 0;
    let seq = rows[rows.length - 1].seq;
    let page = rows;
    for (;;) {
      for (const r of page) {
        const b = Buffer.from(r.data, 'base64');
        emitted += b.length;
        yield b;
      }
      if (page.length < READ_PAGE) break;
      page = await traceChunksAfter(c.db, jobId, seq, READ_PAGE);
      if (page.length) seq = page[page.length - 1].seq;
    }
    const row = await findJobArtifact(c.db, jobId, 'trace');
    if (row && row.size > emitted) {
      const blob = await c.storage.get(row.blob_key);
      if (blob) yield* skipBytes(blob, emitted);
    }
  }
  return Readable.from(all());
}

/** Removes the job's log: chunks, their times, the trace artifact row and its blob. */
export async function eraseTrace(c: Container, jobId: number): Promise<void> {
  await deleteTraceChunks(c.db, jobId);
  await deleteTraceTimes(c.db, jobId);
  const row = await findJobArtifact(c.db, jobId, 'trace');
  if (row) {
    await deleteArtifactRow(c.db, row.id);
    await c.storage.delete(row.blob_key);
  }
  await c.storage.delete(traceBlobKey(jobId));
}

/** The whole trace so far as text (bounded by the trace's output limit). */
export async function traceText(c: Container, jobId: number): Promise<string> {
  const stream = await readTrace(c, jobId);
  if (!stream) return '';
  const parts: Buffer[] = [];
  for await (const b of stream) parts.push(b as Buffer);
  return Buffer.concat(parts).toString('utf8');
}
