// JUnit reports and the pipeline test report (src/ci/reports/junit.ts). Pure: runs once, not per dialect.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestReport, buildTestReportSummary, buildTestSuite, parseJunit, rubyToF } from '../../src/ci/reports/junit.js';

const RSPEC = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="rspec">
  <testsuite name="rspec" tests="4" failures="1" errors="1" skipped="1" time="3.5">
    <testcase classname="spec.user" name="is valid" time="0.5"/>
    <testcase classname="spec.user" name="has a name" time="1.25">
      <failure message="expected true" type="RSpec::Expectations"><![CDATA[expected true
got false
  ./spec/user_spec.rb:12]]></failure>
      <system-out>stdout here</system-out>
    </testcase>
    <testcase classname="spec.user" name="boots" time="0.75"><error message="NoMethodError">undefined method &amp; stuff</error></testcase>
    <testcase classname="spec.user" name="later" time="0"><skipped/></testcase>
  </testsuite>
</testsuites>`;

describe('parseJunit', () => {
  it('reads cases with their status, names, time and output', () => {
    const r = parseJunit(RSPEC);
    assert.equal(r.suite_error, null);
    assert.deepEqual(
      r.test_cases.map((c) => [c.status, c.classname, c.name, c.execution_time]),
      [
        ['success', 'spec.user', 'is valid', 0.5],
        ['failed', 'spec.user', 'has a name', 1.25],
        ['error', 'spec.user', 'boots', 0.75],
        ['skipped', 'spec.user', 'later', 0],
      ],
    );
    assert.equal(r.test_cases[0]!.system_output, null);
    assert.equal(r.test_cases[1]!.system_output, 'expected true\ngot false\n  ./spec/user_spec.rb:12');
    assert.equal(r.test_cases[2]!.system_output, 'undefined method & stuff');
    assert.equal(r.test_cases[3]!.system_output, null);
    assert.equal(r.test_cases[1]!.stack_trace, null);
    assert.equal(r.test_cases[1]!.suite_name, 'rspec');
  });

  it('reads a lone <testsuite>, nested suites, and cases directly in <testsuites>', () => {
    assert.equal(parseJunit('<testsuite name="a"><testcase name="x"/><testcase name="y"/></testsuite>').test_cases.length, 2);
    const nested = parseJunit(`<testsuites><testsuite name="outer"><testsuite name="inner"><testsuite name="deep">
      <testcase name="d"/></testsuite><testcase name="i"/></testsuite></testsuite><testcase name="top"/></testsuites>`);
    assert.deepEqual(nested.test_cases.map((c) => [c.name, c.suite_name]).sort(), [['d', 'deep'], ['i', 'inner'], ['top', null]]);
  });

  it('does not read a <testcase> outside any suite, nor a nested <testsuites>', () => {
    assert.deepEqual(parseJunit('<testcase name="alone"/>').test_cases, []);
    assert.deepEqual(parseJunit('<testsuites><testsuites><testcase name="x"/></testsuites></testsuites>').test_cases, []);
  });

  it('takes the failure message when the failure element has no text', () => {
    const r = parseJunit('<testsuite><testcase name="t"><failure message="boom"/></testcase><testcase name="u"><failure/></testcase></testsuite>');
    assert.equal(r.test_cases[0]!.status, 'failed');
    assert.equal(r.test_cases[0]!.system_output, 'boom');
    assert.equal(r.test_cases[1]!.status, 'failed');
    assert.equal(r.test_cases[1]!.system_output, null);
  });

  it('prefers failure over error over skipped', () => {
    const r = parseJunit('<testsuite><testcase name="t"><skipped/><error/><failure>f</failure></testcase><testcase name="u"><skipped/><error>e</error></testcase></testsuite>');
    assert.deepEqual(r.test_cases.map((c) => c.status), ['failed', 'error']);
  });

  it('reads time as Ruby does', () => {
    assert.equal(rubyToF('1.5'), 1.5);
    assert.equal(rubyToF(' 2'), 2);
    assert.equal(rubyToF('1,234.5'), 1);
    assert.equal(rubyToF('1e3'), 1000);
    assert.equal(rubyToF('abc'), 0);
    assert.equal(rubyToF(null), 0);
    assert.equal(parseJunit('<testsuite><testcase name="t" time="abc"/></testsuite>').test_cases[0]!.execution_time, 0);
  });

  it('gives a suite error instead of throwing on what is not JUnit XML', () => {
    for (const bad of ['', 'not xml at all', '<testsuite><testcase></testsuite>', '{"json": true}']) {
      const r = parseJunit(bad);
      assert.match(r.suite_error ?? '', /^JUnit XML parsing failed: \d+:\d+: FATAL: /, bad);
      assert.deepEqual(r.test_cases, []);
    }
    const textCase = parseJunit('<testsuite><testcase name="t">some text</testcase></testsuite>');
    assert.match(textCase.suite_error ?? '', /^JUnit data parsing failed: /);
  });
});

describe('test report', () => {
  it('builds a suite: counts, total time, cases by status then slowest first', () => {
    const extra = parseJunit('<testsuite name="rspec"><testcase classname="k" name="fast" time="0.1"/><testcase classname="k" name="slow" time="9"/></testsuite>');
    const s = buildTestSuite('rspec', [parseJunit(RSPEC), extra]);
    assert.equal(s.name, 'rspec');
    assert.deepEqual([s.total_count, s.success_count, s.failed_count, s.error_count, s.skipped_count], [6, 3, 1, 1, 1]);
    assert.equal(s.total_time, 0.5 + 1.25 + 0.75 + 0 + 0.1 + 9);
    assert.equal(s.suite_error, null);
    assert.deepEqual(s.test_cases.map((c) => c.name), ['boots', 'has a name', 'slow', 'is valid', 'fast', 'later']);
    assert.deepEqual(Object.keys(s.test_cases[0]!).sort(), ['classname', 'execution_time', 'name', 'stack_trace', 'status', 'system_output']);
  });

  it('counts a case repeated with the same status once, its time twice', () => {
    const xml = '<testsuite name="s"><testcase classname="c" name="n" time="1"/><testcase classname="c" name="n" time="2"/><testcase classname="c" name="n" time="3"><failure>x</failure></testcase></testsuite>';
    const s = buildTestSuite('job', [parseJunit(xml)]);
    assert.deepEqual([s.total_count, s.success_count, s.failed_count], [2, 1, 1]);
    assert.equal(s.total_time, 6);
    assert.equal(s.test_cases.find((c) => c.status === 'success')!.execution_time, 2, 'the later one replaces the earlier');
  });

  it('a suite with a broken file counts and lists no tests', () => {
    const s = buildTestSuite('job', [parseJunit(RSPEC), parseJunit('<broken')]);
    assert.match(s.suite_error ?? '', /^JUnit XML parsing failed/);
    assert.deepEqual([s.total_count, s.success_count, s.failed_count, s.error_count, s.skipped_count], [0, 0, 0, 0, 0]);
    assert.deepEqual(s.test_cases, []);
  });

  it('adds suites up into the report', () => {
    const a = buildTestSuite('rspec', [parseJunit(RSPEC)]);
    const b = buildTestSuite('jest', [parseJunit('<testsuite><testcase name="x" time="2"/></testsuite>')]);
    const r = buildTestReport([a, b]);
    assert.deepEqual([r.total_count, r.success_count, r.failed_count, r.error_count, r.skipped_count], [5, 2, 1, 1, 1]);
    assert.equal(r.total_time, 2.5 + 2);
    assert.deepEqual(r.test_suites.map((s) => s.name), ['rspec', 'jest']);
    assert.deepEqual(buildTestReport([]), { total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, test_suites: [] });
  });

  it('summarizes per suite name with the job ids, and the first suite error', () => {
    const job1 = buildTestSuite('rspec', [parseJunit(RSPEC)]);
    const job2 = buildTestSuite('rspec', [parseJunit('<testsuite><testcase name="other" time="1"/></testsuite>')]);
    const job3 = buildTestSuite('lint', [parseJunit('nope')]);
    const summary = buildTestReportSummary([
      { build_id: 11, suite: job1 },
      { build_id: 12, suite: job2 },
      { build_id: 13, suite: job3 },
    ]);
    assert.deepEqual(summary.total, { time: 3.5, count: 5, success: 2, failed: 1, skipped: 1, error: 1, suite_error: job3.suite_error });
    assert.deepEqual(summary.test_suites, [
      { name: 'rspec', total_time: 3.5, total_count: 5, success_count: 2, failed_count: 1, skipped_count: 1, error_count: 1, build_ids: [11, 12], suite_error: null },
      { name: 'lint', total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, build_ids: [13], suite_error: job3.suite_error },
    ]);
  });
});
