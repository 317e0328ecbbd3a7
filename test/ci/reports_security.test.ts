// Security scanner reports (src/ci/reports/security.ts). Pure: runs once, not per dialect.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { parseSecurityReport, SecurityReportError, uuidV5 } from '../../src/ci/reports/security.js';

const sha1 = (s: string) => crypto.createHash('sha1').update(s).digest('hex');
const UUID5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const SAST = JSON.stringify({
  version: '15.0.4',
  scan: { scanner: { id: 'semgrep', name: 'Semgrep', vendor: { name: 'GitLab' }, version: '1.2' }, type: 'sast', status: 'success' },
  vulnerabilities: [
    {
      id: 'a1',
      category: 'sast',
      message: 'Cross-site scripting',
      description: 'User input reaches HTML',
      cve: 'semgrep_id:xss',
      severity: 'High',
      confidence: 'Medium',
      identifiers: [
        { type: 'semgrep_id', name: 'xss rule', value: 'xss' },
        { type: 'cwe', name: 'CWE-79', value: '79', url: 'https://cwe.mitre.org/data/definitions/79.html' },
      ],
      location: { file: 'app/views/show.js', start_line: 10, end_line: 12 },
    },
    {
      name: 'Weak hash',
      severity: 'bogus',
      identifiers: [{ type: 'cwe', name: 'CWE-328', value: '328' }],
      location: { file: 'lib/hash.rb', start_line: 3 },
      scanner: { id: 'brakeman', name: 'Brakeman' },
    },
    {
      severity: 'low',
      identifiers: [
        { type: 'gosec_rule_id', name: 'G101', value: 'G101' },
        { type: 'CVE', name: 'CVE-2020-1234', value: 'CVE-2020-1234' },
      ],
      location: { file: 'cmd/main.go', start_line: 7, end_line: 7 },
    },
    { severity: 'info', identifiers: [], location: {} },
  ],
});

describe('parseSecurityReport', () => {
  it('normalizes findings: name, levels, identifiers, location, scanner', () => {
    const r = parseSecurityReport('sast', SAST, 42);
    assert.equal(r.version, '15.0.4');
    assert.equal(r.report_type, 'sast');
    assert.deepEqual(r.scanner, { external_id: 'semgrep', name: 'Semgrep', vendor: 'GitLab', version: '1.2' });
    assert.deepEqual(r.scan, { type: 'sast', status: 'success', start_time: null, end_time: null });
    assert.equal(r.findings.length, 4);
    const [xss, hash, gosec, bare] = r.findings as [any, any, any, any];
    assert.equal(xss.name, 'Cross-site scripting');
    assert.equal(xss.severity, 'high');
    assert.equal(xss.confidence, 'medium');
    assert.equal(xss.description, 'User input reaches HTML');
    assert.equal(xss.compare_key, 'semgrep_id:xss');
    assert.deepEqual(xss.identifiers[1], {
      external_type: 'cwe',
      external_id: '79',
      name: 'CWE-79',
      url: 'https://cwe.mitre.org/data/definitions/79.html',
      fingerprint: sha1('cwe:79'),
    });
    assert.deepEqual(xss.location, { file: 'app/views/show.js', start_line: 10, end_line: 12 });
    assert.equal(xss.location_fingerprint, sha1('app/views/show.js:10:12'));
    assert.equal(xss.scanner.external_id, 'semgrep', 'the report scanner when the finding has none');
    assert.equal(hash.name, 'Weak hash');
    assert.equal(hash.severity, 'unknown');
    assert.equal(hash.confidence, 'unknown');
    assert.equal(hash.scanner.external_id, 'brakeman');
    assert.equal(hash.location_fingerprint, sha1('lib/hash.rb:3:'));
    assert.equal(gosec.name, 'CVE-2020-1234 in main.go', 'named after the CVE identifier and the file');
    assert.equal(bare.uuid, null, 'no identifier, no uuid');
    assert.equal(bare.compare_key, '');
  });

  it('gives each finding a stable v5 uuid from type, primary identifier, location and project', () => {
    const a = parseSecurityReport('sast', SAST, 42).findings[0]!;
    const again = parseSecurityReport('sast', SAST, 42).findings[0]!;
    const other = parseSecurityReport('sast', SAST, 43).findings[0]!;
    assert.match(a.uuid!, UUID5);
    assert.equal(a.uuid, again.uuid);
    assert.notEqual(a.uuid, other.uuid);
    assert.equal(a.uuid, uuidV5(`sast-${sha1('semgrep_id:xss')}-${sha1('app/views/show.js:10:12')}-42`));
  });

  it('uses each report type’s location key', () => {
    const one = (type: any, location: object) =>
      parseSecurityReport(type, JSON.stringify({ version: '15.0.0', vulnerabilities: [{ identifiers: [{ type: 'cve', name: 'CVE-1', value: 'CVE-1' }], location }] }), 1)
        .findings[0]!;
    assert.equal(one('dependency_scanning', { file: 'package-lock.json', dependency: { package: { name: 'lodash' }, version: '4.17.0' } }).location_fingerprint, sha1('package-lock.json:lodash'));
    assert.equal(one('container_scanning', { image: 'registry.test/app:abc123', dependency: { package: { name: 'openssl' } } }).location_fingerprint, sha1('registry.test/app:openssl'));
    assert.equal(one('container_scanning', { image: 'alpine:3.7', dependency: { package: { name: 'musl' } } }).location_fingerprint, sha1('alpine:3.7:musl'), 'a version tag stays');
    assert.equal(one('dast', { hostname: 'http://app', method: 'POST', path: '/login', param: 'user' }).location_fingerprint, sha1('/login:POST:user'));
    assert.equal(one('secret_detection', { file: '.env', start_line: 2, end_line: 2 }).location_fingerprint, sha1('.env:2:2'));
    assert.equal(one('dast', { hostname: 'http://app', method: 'GET', path: '/x' }).name, 'CVE-1 in /x');
  });

  it('refuses what is not a report', () => {
    assert.throws(() => parseSecurityReport('sast', '{nope', 1), (e: Error) => e instanceof SecurityReportError && e.message === 'JSON parsing failed');
    for (const bad of ['[]', '{}', '{"version":"15.0.0"}', '{"vulnerabilities":[]}', '{"version":15,"vulnerabilities":[]}', '{"version":"15.0.0","vulnerabilities":{}}', 'null']) {
      assert.throws(() => parseSecurityReport('sast', bad, 1), (e: Error) => e instanceof SecurityReportError && e.message === 'Invalid report format', bad);
    }
    assert.throws(() => parseSecurityReport('junit' as any, '{"version":"1","vulnerabilities":[]}', 1), SecurityReportError);
  });

  it('accepts an empty report and skips entries that are not objects', () => {
    const r = parseSecurityReport('secret_detection', '{"version":"15.0.0","vulnerabilities":[1,"x",null]}', 1);
    assert.deepEqual(r.findings, []);
    assert.equal(r.scanner, null);
  });
});
