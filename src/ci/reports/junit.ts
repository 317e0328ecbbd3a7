// JUnit XML reports (`artifacts:reports:junit`) and the pipeline test report built from them,
// with the reference's semantics:
//  - test cases are read from one top-level <testsuites> and from <testsuite> elements at any
//    depth (PHPUnit nests them); a <testcase> outside both is not read;
//  - a case with <failure> is failed, else with <error> error, else with <skipped> skipped, else
//    success; system_output is that element's text; execution_time is `time` as a number
//    (Ruby's to_f: 0 when absent or not a number);
//  - a file that is not XML makes the suite's suite_error "JUnit XML parsing failed: …";
//  - in a suite, a case with the same suite name, class name and name as an earlier one of the
//    same status replaces it (its time still counts in total_time); a suite with an error
//    counts no tests and lists none.
// One suite per job (parallel jobs share their group's name); the summary keeps the job ids.
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export type TestStatus = 'success' | 'failed' | 'skipped' | 'error';

/** A test case as the API shows it. */
export interface TestCase {
  status: TestStatus;
  name: string | null;
  classname: string | null;
  execution_time: number;
  system_output: string | null;
  stack_trace: string | null;
}

/** A test case as read from one file: also the <testsuite> it was in (its `name`), for de-duplication. */
export interface ParsedTestCase extends TestCase {
  suite_name: string | null;
}

/** What one JUnit file holds. */
export interface ParsedJunit {
  test_cases: ParsedTestCase[];
  suite_error: string | null;
}

/** The totals a test report, its suites and the summary's suites each carry. */
export interface TestCounts {
  total_time: number;
  total_count: number;
  success_count: number;
  failed_count: number;
  skipped_count: number;
  error_count: number;
}

/** A test suite of the test report (the reference's TestSuiteEntity with details). */
export interface TestSuite extends TestCounts {
  name: string;
  suite_error: string | null;
  test_cases: TestCase[];
}

export interface TestReport extends TestCounts {
  test_suites: TestSuite[];
}

export interface TestSuiteSummary extends TestCounts {
  name: string;
  build_ids: number[];
  suite_error: string | null;
}

export interface TestReportSummary {
  total: {
    time: number;
    count: number;
    success: number;
    failed: number;
    skipped: number;
    error: number;
    suite_error: string | null;
  };
  test_suites: TestSuiteSummary[];
}

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => name === 'testsuites' || name === 'testsuite' || name === 'testcase',
});

class JunitDataError extends Error {}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const isNode = (v: unknown): v is XmlNode => typeof v === 'object' && v !== null && !Array.isArray(v);

function attr(node: XmlNode, name: string): string | null {
  const v = node[`@_${name}`];
  return typeof v === 'string' ? v : null;
}

/** Ruby's String#to_f: the leading number, else 0. */
export function rubyToF(value: string | null): number {
  if (value === null) return 0;
  const m = /^\s*[+-]?(\d[\d_]*(\.\d+)?|\.\d+)([eE][+-]?\d+)?/.exec(value);
  return m ? Number.parseFloat(m[0].replace(/_/g, '')) : 0;
}

/** An element's text (its attributes aside); null when it has none but blanks. */
function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v.trim() ? v : null;
  if (isNode(v)) {
    const t = v['#text'];
    if (typeof t === 'string' && t.trim()) return t;
    // Only attributes (`<failure message="…"/>`): the message is the text.
    return attr(v, 'message');
  }
  return null;
}

function testCase(node: unknown, suiteName: string | null): ParsedTestCase | null {
  if (node === '' || node === undefined || node === null) return null; // `<testcase/>`
  if (typeof node === 'string') {
    if (!node.trim()) return null;
    throw new JunitDataError('string not matched'); // text-only <testcase> (as the reference fails)
  }
  if (!isNode(node)) return null;
  const text = node['#text'];
  const hasChildren = Object.keys(node).some((k) => k !== '#text' && !k.startsWith('@_'));
  if (typeof text === 'string' && text.trim() && !hasChildren) throw new JunitDataError('string not matched');
  let status: TestStatus = 'success';
  let output: string | null = null;
  if ('failure' in node) {
    status = 'failed';
    output = textOf(node.failure);
  } else if ('error' in node) {
    status = 'error';
    output = textOf(node.error);
  } else if ('skipped' in node) {
    status = 'skipped';
    output = textOf(node.skipped);
  }
  return {
    status,
    name: attr(node, 'name'),
    classname: attr(node, 'classname'),
    execution_time: rubyToF(attr(node, 'time')),
    system_output: output,
    stack_trace: null,
    suite_name: suiteName,
  };
}

function collect(value: unknown, inSuite: boolean, out: ParsedTestCase[]): void {
  for (const node of asList(value)) {
    if (!isNode(node)) continue;
    if (!inSuite) collect(node.testsuites, true, out); // one top-level <testsuites> only
    if (inSuite) {
      const suiteName = attr(node, 'name');
      for (const tc of asList(node.testcase)) {
        const c = testCase(tc, suiteName);
        if (c) out.push(c);
      }
    }
    collect(node.testsuite, true, out); // nested <testsuite> at any depth
  }
}

/** Reads one JUnit XML file. Never throws: a bad file gives suite_error and no cases. */
export function parseJunit(xml: string): ParsedJunit {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { line, col, msg } = valid.err;
    return { test_cases: [], suite_error: `JUnit XML parsing failed: ${line ?? 1}:${col ?? 1}: FATAL: ${msg}` };
  }
  try {
    const out: ParsedTestCase[] = [];
    collect(parser.parse(xml) as XmlNode, false, out);
    return { test_cases: out, suite_error: null };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    if (e instanceof JunitDataError) return { test_cases: [], suite_error: `JUnit data parsing failed: ${reason}` };
    return { test_cases: [], suite_error: `JUnit XML parsing failed: ${reason}` };
  }
}

const STATUS_ORDER: TestStatus[] = ['error', 'failed', 'success', 'skipped'];

/**
 * One suite of the test report from the JUnit files of one job (or of the jobs of one parallel
 * group), in the order the files were read. Cases are listed by status (error, failed, success,
 * skipped), the slowest first.
 */
export function buildTestSuite(name: string, files: ParsedJunit[]): TestSuite {
  const byStatus = new Map<TestStatus, Map<string, ParsedTestCase>>();
  let totalTime = 0;
  let suiteError: string | null = null;
  for (const file of files) {
    if (file.suite_error) suiteError = file.suite_error;
    for (const c of file.test_cases) {
      const key = JSON.stringify([c.suite_name ?? name, c.classname, c.name]);
      let cases = byStatus.get(c.status);
      if (!cases) byStatus.set(c.status, (cases = new Map()));
      cases.set(key, c);
      totalTime += c.execution_time;
    }
  }
  const count = (s: TestStatus) => (suiteError ? 0 : (byStatus.get(s)?.size ?? 0));
  const testCases: TestCase[] = suiteError
    ? []
    : STATUS_ORDER.flatMap((s) =>
        [...(byStatus.get(s)?.values() ?? [])]
          .sort((a, b) => b.execution_time - a.execution_time)
          .map(({ suite_name: _s, ...c }) => c),
      );
  const [success, failed, skipped, error] = [count('success'), count('failed'), count('skipped'), count('error')];
  return {
    name,
    total_time: totalTime,
    total_count: success + failed + skipped + error,
    success_count: success,
    failed_count: failed,
    skipped_count: skipped,
    error_count: error,
    suite_error: suiteError,
    test_cases: testCases,
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The pipeline's test report from its suites (one per job name / parallel group). */
export function buildTestReport(suites: TestSuite[]): TestReport {
  return {
    total_time: sum(suites.map((s) => s.total_time)),
    total_count: sum(suites.map((s) => s.total_count)),
    success_count: sum(suites.map((s) => s.success_count)),
    failed_count: sum(suites.map((s) => s.failed_count)),
    skipped_count: sum(suites.map((s) => s.skipped_count)),
    error_count: sum(suites.map((s) => s.error_count)),
    test_suites: suites,
  };
}

/**
 * The test report summary from each job's own suite (`buildTestSuite(groupName, thatJobsFiles)`),
 * in job order: suites of the same name are added up, keeping their job ids.
 */
export function buildTestReportSummary(results: { build_id: number; suite: TestSuite }[]): TestReportSummary {
  const groups = new Map<string, { build_id: number; suite: TestSuite }[]>();
  for (const r of results) {
    const g = groups.get(r.suite.name);
    if (g) g.push(r);
    else groups.set(r.suite.name, [r]);
  }
  const summarize = (name: string, rs: { build_id: number; suite: TestSuite }[]): TestSuiteSummary => {
    const success = sum(rs.map((r) => r.suite.success_count));
    const failed = sum(rs.map((r) => r.suite.failed_count));
    const skipped = sum(rs.map((r) => r.suite.skipped_count));
    const error = sum(rs.map((r) => r.suite.error_count));
    return {
      name,
      total_time: sum(rs.map((r) => r.suite.total_time)),
      total_count: success + failed + skipped + error,
      success_count: success,
      failed_count: failed,
      skipped_count: skipped,
      error_count: error,
      build_ids: rs.map((r) => r.build_id),
      suite_error: rs.find((r) => r.suite.suite_error)?.suite.suite_error ?? null,
    };
  };
  const all = summarize('', results);
  return {
    total: {
      time: all.total_time,
      count: all.total_count,
      success: all.success_count,
      failed: all.failed_count,
      skipped: all.skipped_count,
      error: all.error_count,
      suite_error: all.suite_error,
    },
    test_suites: [...groups].map(([name, rs]) => summarize(name, rs)),
  };
}
