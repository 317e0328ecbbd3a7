// Relation files: one JSON object per line. Read as a stream, line by line, with the
// reference's behaviour: a line that is not JSON fails the whole import.
import fs from 'node:fs';
import readline from 'node:readline';

export class NdjsonFormatError extends Error {
  constructor() {
    super('Incorrect JSON format');
  }
}

/** Each record of an ndjson file with its 0-based line number; blank lines are skipped. */
export async function* readNdjson(file: string): AsyncGenerator<{ line: number; record: Record<string, unknown> }> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = -1;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      lines.close();
      throw new NdjsonFormatError();
    }
    if (!record || typeof record !== 'object' || Array.isArray(record)) {
      lines.close();
      throw new NdjsonFormatError();
    }
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
