// The sleeps between polls of the queue workers and the CI runner: a wake ends them early, and
// once their owner stops, a loop that was busy at that moment does not sleep a whole poll.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Sleepers } from '../../src/shared/sleepers.js';

const settled = (p: Promise<void>, ms: number) => Promise.race([p.then(() => 'woke'), new Promise((r) => setTimeout(() => r('asleep'), ms))]);

describe('Sleepers', () => {
  it('a wake ends one sleep; wakeAll ends every sleep', async () => {
    const s = new Sleepers();
    const a = s.sleep(60_000);
    const b = s.sleep(60_000);
    s.wakeOne();
    assert.equal(await settled(a, 50), 'woke');
    assert.equal(await settled(b, 50), 'asleep');
    s.wakeAll();
    assert.equal(await settled(b, 50), 'woke');
  });

  it('after close() a sleep begun later ends at once (a worker busy at the stop sees it without waiting a poll)', async () => {
    const s = new Sleepers();
    const before = s.sleep(60_000);
    s.close();
    assert.equal(await settled(before, 50), 'woke');
    assert.equal(await settled(s.sleep(60_000), 50), 'woke');
    const open = new Sleepers();
    assert.equal(await settled(open.sleep(60_000), 50), 'asleep', 'an open one still sleeps');
    open.wakeAll();
  });
});
