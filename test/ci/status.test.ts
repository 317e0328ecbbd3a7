// The composite rule, case by case (the reference's table), and when a created job may run.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compositeStatus, decideJob } from '../../src/ci/status.js';

const s = (...list: (string | [string, boolean])[]) =>
  list.map((e) => (typeof e === 'string' ? { status: e, allow_failure: false } : { status: e[0], allow_failure: e[1] }));

describe('compositeStatus', () => {
  const cases: [ReturnType<typeof s>, string | null][] = [
    [s(), null],
    [s('success', 'success'), 'success'],
    [s('success', 'skipped'), 'success'],
    [s('skipped', 'skipped'), 'skipped'],
    [s('success', 'failed'), 'failed'],
    [s('success', ['failed', true]), 'success'], // allowed failure: passed with warnings
    [s(['canceled', true], 'success'), 'success'],
    [s('success', ['manual', true]), 'success'], // optional manual job is ignored
    [s(['manual', true]), 'skipped'],
    [s('success', 'manual'), 'manual'], // blocking manual job
    [s('created', 'created'), 'created'],
    [s('pending', 'created'), 'pending'],
    [s('success', 'pending'), 'running'],
    [s('running', 'failed'), 'running'],
    [s('success', 'created'), 'running'],
    [s('canceled', 'success'), 'canceled'],
    [s('canceled', 'failed'), 'failed'],
    [s('scheduled', 'success'), 'scheduled'],
    [s('manual', 'scheduled'), 'manual'],
    [s('failed', ['failed', true]), 'failed'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input.map((e) => (e.allow_failure ? `${e.status}*` : e.status)))} → ${expected}`, () => {
      assert.equal(compositeStatus(input), expected);
    });
  }

  it('needs (dag): a skipped or ignored need skips; an incomplete one waits', () => {
    assert.equal(compositeStatus(s('success', 'skipped'), { dag: true }), 'skipped');
    assert.equal(compositeStatus(s(['manual', true]), { dag: true }), 'skipped');
    assert.equal(compositeStatus(s('success', 'running'), { dag: true }), 'pending');
    assert.equal(compositeStatus(s('success', ['failed', true]), { dag: true }), 'success');
    assert.equal(compositeStatus(s('failed'), { dag: true }), 'failed');
  });
});

describe('decideJob', () => {
  it('waits until the jobs before it completed', () => {
    for (const prior of ['pending', 'running', 'created', 'manual', 'scheduled']) assert.equal(decideJob('on_success', prior, false), 'wait');
  });
  it('on_success runs after success (and after skipped, by stages only)', () => {
    assert.equal(decideJob('on_success', 'success', false), 'run');
    assert.equal(decideJob('on_success', 'skipped', false), 'run');
    assert.equal(decideJob('on_success', 'skipped', true), 'skip');
    assert.equal(decideJob('on_success', 'failed', false), 'skip');
    assert.equal(decideJob('on_success', null, false), 'run');
  });
  it('on_failure runs only after a failure; always after anything but a cancel', () => {
    assert.equal(decideJob('on_failure', 'failed', false), 'run');
    assert.equal(decideJob('on_failure', 'success', false), 'skip');
    assert.equal(decideJob('always', 'failed', false), 'run');
    assert.equal(decideJob('always', 'success', false), 'run');
    assert.equal(decideJob('always', 'canceled', false), 'skip');
  });
  it('manual and delayed jobs wait for success like on_success', () => {
    assert.equal(decideJob('manual', 'success', false), 'run');
    assert.equal(decideJob('delayed', 'failed', false), 'skip');
  });
});
