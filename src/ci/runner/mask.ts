// Masked variables in a job's log: every occurrence of a masked value becomes `[MASKED]`, also
// when the value arrives split across output chunks. Bytes that could begin a masked value are
// held back until the next chunk (or the end) tells; everything else passes at once.

export const MASKED = '[MASKED]';

export class LogMasker {
  private readonly secrets: Buffer[];
  private pending: Buffer = Buffer.alloc(0);
  private readonly replacement = Buffer.from(MASKED);

  constructor(
    values: string[],
    private readonly out: (chunk: Buffer) => void,
  ) {
    // Longest first, so that a value holding another is masked whole; empty values mask nothing.
    this.secrets = [...new Set(values.filter((v) => v.length > 0))].map((v) => Buffer.from(v)).sort((a, b) => b.length - a.length);
  }

  write(chunk: Buffer): void {
    if (this.secrets.length === 0) {
      this.out(chunk);
      return;
    }
    const data = this.mask(Buffer.concat([this.pending, chunk]));
    const hold = this.heldBack(data);
    this.pending = data.subarray(data.length - hold);
    if (data.length - hold > 0) this.out(data.subarray(0, data.length - hold));
  }

  /** Writes what was held back (the output has ended). */
  end(): void {
    if (this.pending.length) this.out(this.pending);
    this.pending = Buffer.alloc(0);
  }

  private mask(data: Buffer): Buffer {
    const parts: Buffer[] = [];
    let from = 0;
    for (let i = 0; i < data.length; ) {
      const hit = this.secrets.find((s) => data[i] === s[0] && data.subarray(i, i + s.length).equals(s));
      if (hit) {
        parts.push(data.subarray(from, i), this.replacement);
        i += hit.length;
        from = i;
      } else i++;
    }
    if (from === 0) return data;
    parts.push(data.subarray(from));
    return Buffer.concat(parts);
  }

  /** How many trailing bytes are the start of some masked value (and must wait for more). */
  private heldBack(data: Buffer): number {
    let best = 0;
    for (const s of this.secrets) {
      for (let n = Math.min(s.length - 1, data.length); n > best; n--) {
        if (data.subarray(data.length - n).equals(s.subarray(0, n))) {
          best = n;
          break;
        }
      }
    }
    return best;
  }
}
