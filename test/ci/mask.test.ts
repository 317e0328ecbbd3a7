// The log masker: every occurrence of a masked value becomes [MASKED], however the output is cut.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LogMasker } from '../../src/ci/runner/mask.js';

function masked(values: string[], chunks: string[]): { out: string; pieces: string[] } {
  const pieces: string[] = [];
  const m = new LogMasker(values, (b) => pieces.push(b.toString()));
  for (const c of chunks) m.write(Buffer.from(c));
  m.end();
  return { out: pieces.join(''), pieces };
}

describe('log masker', () => {
  it('masks whole values and values cut at every position', () => {
    const secret = 'abcdEFGH1234';
    const text = `before ${secret} middle ${secret}${secret} after`;
    const want = 'before [MASKED] middle [MASKED][MASKED] after';
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j += 3) {
        assert.equal(masked([secret], [text.slice(0, i), text.slice(i, j), text.slice(j)]).out, want, `cut at ${i}, ${j}`);
      }
    }
    // One byte at a time.
    assert.equal(masked([secret], [...text]).out, want);
  });

  it('holds back only what could begin a value, and the longest value wins', () => {
    const { pieces } = masked(['secret-one'], ['plain line\n', 'ends with sec']);
    assert.deepEqual(pieces, ['plain line\n', 'ends with ', 'sec']);
    assert.equal(masked(['token', 'token-long-value'], ['a token-long-value b token c']).out, 'a [MASKED] b [MASKED] c');
    assert.equal(masked([], ['nothing to mask']).out, 'nothing to mask');
    assert.equal(masked([''], ['empty values mask nothing']).out, 'empty values mask nothing');
  });

  it('masks multi-byte values cut inside a character', () => {
    const secret = 'pässwörd-ünïcode';
    const bytes = Buffer.from(`x ${secret} y`);
    const pieces: string[] = [];
    const m = new LogMasker([secret], (b) => pieces.push(b.toString('latin1')));
    for (const b of bytes) m.write(Buffer.from([b]));
    m.end();
    assert.equal(Buffer.from(pieces.join(''), 'latin1').toString(), 'x [MASKED] y');
  });
});
