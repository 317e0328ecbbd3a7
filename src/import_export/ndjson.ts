// Relation files: one JSON object per line. Read as a stream, line by line, with the
// reference's behaviour: a line that is not JSON fails the whole import. A line longer than
// MAX_LINE_BYTES is refused before it is held in memory whole.
import fs from 'node:fs';

export class NdjsonFormatError extends Error {
  constructor(message = 'Incorrect JSON format') {
    super(message);
  }
}

/**
 * Longer than any record Anvil writes (a pipeline of its 5,000 jobs at most is a few MB), and
 * small enough that parsing the longest line stays around a hundred MB of memory (the reference
 * reads lines of up to 50 MB).
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** The lines of a file, split on `\n` (a trailing `\r` dropped), each at most maxBytes long. */
async function* lines(file: string, maxBytes: number): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const tooLong = () => new NdjsonFormatError(`A line of ${file.split('/').slice(-3).join('/')} is longer than ${maxBytes} bytes`);
  for await (const chunk of fs.createReadStream(file)) {
    let buf = chunk as Buffer;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a)) {
      if (pendingBytes + nl > maxBytes) throw tooLong();
      const line = Buffer.concat([...pending, buf.subarray(0, nl)]).toString('utf8');
      pending = [];
      pendingBytes = 0;
      yield line.endsWith('\r') ? line.slice(0, -1) : line;
      buf = buf.subarray(nl + 1);
    }
    pendingBytes += buf.length;
    if (pendingBytes > maxBytes) throw tooLong();
    if (buf.length) pending.push(buf);
  }
  if (pendingBytes > 0) yield Buffer.concat(pending).toString('utf8');
}

/** Each record of an ndjson file with its 0-based line number; blank lines are skipped. */
export async function* readNdjson(file: string, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<{ line: number; record: Record<string, unknown> }> {
  let line = -1;
  for await (const text of lines(file, maxLineBytes)) {
    line += 1;
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      throw new NdjsonFormatError();
    }
    if (!record || typeof record !== 'object' || Array.isArray(record)) throw new NdjsonFormatError();
    yield { line, record: record as Record<string, unknown> };
  }
}

/** Writes records as ndjson to a file, waiting on the disk when it is slower than the source. */
export async function writeNdjson(file: string, records: AsyncIterable<unknown> | Iterable<unknown>): Promise<number> {
  const out = fs.createWriteStream(file, { flags: 'wx' });
  let n = 0;
  try {
    for await (const r of records) {
      if (!out.write(`${JSON.stringify(r)}\n`)) await new Promise<void>((resolve) => out.once('drain', resolve));
      n += 1;
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  return n;
}
