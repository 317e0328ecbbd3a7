// Artifact expiry and the artifact size limit (src/ci/artifacts/expire.ts); the durations themselves: durations.test.ts.
// Pure: runs once, not per dialect.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { artifactsExpireAt, exceedsArtifactLimit, MEGABYTE } from '../../src/ci/artifacts/expire.js';

describe('expire_in', () => {
  it('computes the expiry time, falling back to the instance default', () => {
    const now = new Date('2024-01-01T00:00:00.000Z');
    assert.equal(artifactsExpireAt('1 day', '30 days', now), '2024-01-02T00:00:00.000Z');
    assert.equal(artifactsExpireAt(null, '30 days', now), '2024-01-31T00:00:00.000Z');
    assert.equal(artifactsExpireAt('1 year', '30 days', now), '2024-12-31T06:00:00.000Z'); // 365.25 days
    assert.equal(artifactsExpireAt('never', '30 days', now), null);
    assert.equal(artifactsExpireAt('Never', '30 days', now), null);
    assert.equal(artifactsExpireAt(null, '0', now), null); // the default's `0`: kept forever
    assert.equal(artifactsExpireAt(null, 'never', now), null);
    assert.equal(artifactsExpireAt(null, null, now), null);
  });
});

describe('artifact size limit', () => {
  it('compares against max_artifacts_size in MB; 0 or null is no limit', () => {
    assert.equal(exceedsArtifactLimit(100 * MEGABYTE, 100), false);
    assert.equal(exceedsArtifactLimit(100 * MEGABYTE + 1, 100), true);
    assert.equal(exceedsArtifactLimit(10 ** 12, 0), false);
    assert.equal(exceedsArtifactLimit(10 ** 12, null), false);
  });
});
