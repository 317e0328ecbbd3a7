// The pipeline test report and its summary, from the junit artifacts of the pipeline's current
// jobs: each artifact (a gzip of one member per report file, or a raw file) is read from blob
// storage and parsed; jobs of one parallel group make one suite named after the group.
import type { Readable } from 'node:stream';
import type { Container } from '../context.js';
import { gunzipMembers } from '../../ci/artifacts/gzip.js';
import {
  buildTestReport as reportOf, buildTestReportSummary as summaryOf, buildTestSuite, parseJunit, type ParsedJunit, type TestReport, type TestReportSummary,
} from '../../ci/reports/junit.js';
import type { JunitArtifactRow } from '../../db/repos/ci_pipeline_lists.js';

export type { TestReport, TestReportSummary };

/** The reference's group name of a job: `rspec 1/3`, `test: [a, b]` → `rspec`, `test`. */
export function groupName(name: string): string {
  return name.replace(/([\s:]+((\[.*\])|(\d+[\s:/\\]+\d+))){1,3}\s*$/, '').trim();
}

async function readAll(s: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of s) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** The parsed report files of one artifact; an unreadable artifact is a suite error. */
async function filesOf(c: Container, row: JunitArtifactRow): Promise<ParsedJunit[]> {
  const body = await c.storage.get(row.blob_key);
  if (!body) return [];
  const bytes = await readAll(body);
  let texts: string[];
  try {
    texts = row.file_format === 'gzip' ? gunzipMembers(bytes).map((m) => m.data.toString('utf8')) : [bytes.toString('utf8')];
  } catch (e) {
    return [{ test_cases: [], suite_error: `JUnit XML parsing failed: ${e instanceof Error ? e.message : String(e)}` }];
  }
  return texts.map(parseJunit);
}

async function parsedByJob(c: Container, rows: JunitArtifactRow[]): Promise<{ jobId: number; group: string; files: ParsedJunit[] }[]> {
  const out: { jobId: number; group: string; files: ParsedJunit[] }[] = [];
  for (const row of rows) out.push({ jobId: row.job_id, group: groupName(row.job_name), files: await filesOf(c, row) });
  return out;
}

export async function buildTestReport(c: Container, rows: JunitArtifactRow[]): Promise<TestReport> {
  const groups = new Map<string, ParsedJunit[]>();
  for (const j of await parsedByJob(c, rows)) groups.set(j.group, [...(groups.get(j.group) ?? []), ...j.files]);
  return reportOf([...groups].map(([name, files]) => buildTestSuite(name, files)));
}

export async function buildTestReportSummary(c: Container, rows: JunitArtifactRow[]): Promise<TestReportSummary> {
  return summaryOf((await parsedByJob(c, rows)).map((j) => ({ build_id: j.jobId, suite: buildTestSuite(j.group, j.files) })));
}
