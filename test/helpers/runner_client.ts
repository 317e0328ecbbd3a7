// A runner client for the tests: it speaks the runner API over real HTTP exactly as gitlab-runner
// does (network/gitlab.go): JSON bodies with the runner's `info`, the runner token in the body,
// the job token in JOB-TOKEN, `X-GitLab-Last-Update` fed back as `last_update`, the log sent in
// pieces with `Content-Range: start-end` and re-sent from the server's `Range` after a 416,
// artifacts as a streamed (chunked) multipart `file`. It runs a job as the shell executor does:
// a git clone with the job's repo_url, then the steps' scripts in bash.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const RUNNER_INFO = {
  name: 'gitlab-runner',
  version: '17.5.0',
  revision: 'abcdef12',
  platform: 'linux',
  architecture: 'amd64',
  executor: 'shell',
  shell: 'bash',
  features: {
    variables: true, image: false, services: false, artifacts: true, cache: true, shared: true, upload_multiple_artifacts: true,
    upload_raw_artifacts: true, session: false, terminal: false, refspecs: true, masking: true, proxy: false, raw_variables: true,
    artifacts_exclude: true, multi_build_steps: true, trace_reset: true, trace_checksum: true, trace_size: true, vault_secrets: true,
    cancelable: true, return_exit_code: true, cancel_gracefully: true, two_phase_job_commit: true,
  },
};

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export class TestRunnerClient {
  token: string | null = null;
  id: number | null = null;
  lastUpdate = '';

  constructor(
    readonly baseUrl: string,
    readonly systemId = `s_${Math.random().toString(16).slice(2, 14)}`,
  ) {}

  /**
   * One request as the runner's client sends it: its User-Agent, a correlation id, the runner
   * token also in RUNNER-TOKEN (runner calls), JSON with `Accept: application/json` when an
   * answer body is decoded.
   */
  private async call(
    method: string,
    uri: string,
    opts: { json?: unknown; headers?: Record<string, string>; body?: any; duplex?: boolean; runnerToken?: string | null; decodes?: boolean } = {},
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = {
      'user-agent': `gitlab-runner ${RUNNER_INFO.version} (main; go1.22; linux/amd64)`,
      'x-request-id': `01J${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
      ...(opts.runnerToken ? { 'runner-token': opts.runnerToken } : {}),
      ...(opts.headers ?? {}),
    };
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] = 'application/json';
      if (opts.decodes) headers.accept = 'application/json';
    }
    const res = await fetch(`${this.baseUrl}/api/v4/${uri}`, { method, headers, body, ...(opts.duplex ? { duplex: 'half' } : {}) } as RequestInit);
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    const isJson = (res.headers.get('content-type') ?? '') === 'application/json';
    return { status: res.status, headers: res.headers, body: isJson && text !== '' ? JSON.parse(text) : undefined, text };
  }

  /** `gitlab-runner register --registration-token …` (the legacy flow). */
  async register(registrationToken: string, o: { description?: string; tags?: string[]; runUntagged?: boolean; locked?: boolean; paused?: boolean; accessLevel?: string; maximumTimeout?: number } = {}): Promise<HttpAnswer> {
    const r = await this.call('POST', 'runners', {
      runnerToken: registrationToken,
      decodes: true,
      json: {
        info: RUNNER_INFO,
        token: registrationToken,
        description: o.description ?? 'test runner',
        ...(o.tags?.length ? { tag_list: o.tags.join(',') } : {}),
        run_untagged: o.runUntagged ?? true,
        locked: o.locked ?? true,
        ...(o.accessLevel ? { access_level: o.accessLevel } : {}),
        ...(o.maximumTimeout ? { maximum_timeout: o.maximumTimeout } : {}),
        paused: o.paused ?? false,
      },
    });
    if (r.status === 201) {
      this.token = r.body.token;
      this.id = r.body.id;
    }
    return r;
  }

  /** `gitlab-runner register --token glrt-…`: the runner verifies the token it was given. */
  async verify(token: string): Promise<HttpAnswer> {
    const r = await this.call('POST', 'runners/verify', { runnerToken: token, decodes: true, json: { token, system_id: this.systemId, info: RUNNER_INFO } });
    if (r.status === 200) {
      this.token = token;
      this.id = r.body.id;
    }
    return r;
  }

  unregister(): Promise<HttpAnswer> {
    return this.call('DELETE', 'runners', { runnerToken: this.token, json: { token: this.token } });
  }

  unregisterManager(): Promise<HttpAnswer> {
    return this.call('DELETE', 'runners/managers', { runnerToken: this.token, json: { token: this.token, system_id: this.systemId } });
  }

  async resetToken(): Promise<HttpAnswer> {
    const r = await this.call('POST', 'runners/reset_authentication_token', { decodes: true, json: { token: this.token } });
    if (r.status === 201) this.token = r.body.token;
    return r;
  }

  /** One `POST /jobs/request`; remembers X-GitLab-Last-Update as the runner's client does. */
  async requestJob(): Promise<HttpAnswer> {
    const r = await this.call('POST', 'jobs/request', {
      runnerToken: this.token,
      decodes: true,
      json: { info: RUNNER_INFO, token: this.token, system_id: this.systemId, ...(this.lastUpdate ? { last_update: this.lastUpdate } : {}) },
    });
    const lu = r.headers.get('x-gitlab-last-update');
    if (lu) this.lastUpdate = lu;
    return r;
  }

  /** Polls until a job comes (201), at most `tries` requests. */
  async nextJob(tries = 20): Promise<any> {
    for (let i = 0; i < tries; i++) {
      const r = await this.requestJob();
      if (r.status === 201) return r.body;
      if (r.status !== 204 && r.status !== 409) throw new Error(`jobs/request answered ${r.status} ${r.text}`);
    }
    throw new Error('no job came');
  }

  patchTrace(jobId: number, jobToken: string, content: Buffer, offset: number): Promise<HttpAnswer> {
    return this.call('PATCH', `jobs/${jobId}/trace?debug_trace=false`, {
      headers: { 'job-token': jobToken, 'content-range': `${offset}-${offset + content.length - 1}`, 'content-type': 'text/plain' },
      body: content,
    });
  }

  updateJob(jobId: number, jobToken: string, o: { state: string; failureReason?: string; exitCode?: number; bytesize?: number }): Promise<HttpAnswer> {
    return this.call('PUT', `jobs/${jobId}`, {
      headers: { 'job-token': jobToken },
      json: {
        info: RUNNER_INFO,
        token: jobToken,
        state: o.state,
        ...(o.failureReason ? { failure_reason: o.failureReason } : {}),
        checksum: 'crc32:00000000',
        output: { checksum: 'crc32:00000000', ...(o.bytesize ? { bytesize: o.bytesize } : {}) },
        ...(o.exitCode ? { exit_code: o.exitCode } : {}),
      },
    });
  }

  /** A multipart upload streamed in pieces (chunked), as the runner's artifacts uploader sends it. */
  uploadArtifact(jobId: number, jobToken: string, content: Buffer, o: { filename: string; type: string; format: string; expireIn?: string }): Promise<HttpAnswer> {
    const boundary = `----runner${Math.random().toString(16).slice(2)}`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${o.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const pieces = [head, content.subarray(0, Math.floor(content.length / 2)), content.subarray(Math.floor(content.length / 2)), tail];
    const stream = new ReadableStream({
      pull(ctrl) {
        const p = pieces.shift();
        if (p) ctrl.enqueue(new Uint8Array(p));
        else ctrl.close();
      },
    });
    const query = new URLSearchParams({ artifact_format: o.format, artifact_type: o.type, ...(o.expireIn ? { expire_in: o.expireIn } : {}) });
    return this.call('POST', `jobs/${jobId}/artifacts?${query}`, {
      headers: { 'job-token': jobToken, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: true,
    });
  }

  async downloadArtifact(jobId: number, jobToken: string): Promise<{ status: number; body: Buffer }> {
    const res = await fetch(`${this.baseUrl}/api/v4/jobs/${jobId}/artifacts?direct_download=true`, { headers: { 'job-token': jobToken } });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  }

  /**
   * Sends the log in pieces of `pieceSize` bytes; after a 416 it continues from the server's
   * Range as the runner does. Returns the last answer's Job-Status.
   */
  async sendTrace(jobId: number, jobToken: string, log: Buffer, pieceSize: number, from = 0): Promise<{ sent: number; jobStatus: string | null; resyncs: number }> {
    let offset = from;
    let jobStatus: string | null = null;
    let resyncs = 0;
    while (offset < log.length) {
      const piece = log.subarray(offset, offset + pieceSize);
      const r = await this.patchTrace(jobId, jobToken, piece, offset);
      jobStatus = r.headers.get('job-status');
      const range = /^0-(\d+)$/.exec(r.headers.get('range') ?? '');
      if (r.status === 202) offset += piece.length;
      else if (r.status === 416 && range) {
        offset = Number(range[1]);
        resyncs += 1;
      } else throw new Error(`trace patch answered ${r.status} ${r.text}`);
    }
    return { sent: offset, jobStatus, resyncs };
  }
}

/** Runs a shell command, returning its exit code and output (stdout and stderr together). */
export function sh(script: string, opts: { cwd: string; env: Record<string, string> }): Promise<{ code: number; output: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: opts.cwd, env: opts.env });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => out.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output: Buffer.concat(out) }));
  });
}

/**
 * Runs a job as the shell executor does: clones repo_url (the job token inside) at the job's sha,
 * then runs the `script` step with the job's variables in the environment. Returns the log and
 * the exit code of the script.
 */
export async function executeShellJob(job: any): Promise<{ log: Buffer; exitCode: number; dir: string }> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-runner-'));
  const dir = path.join(base, 'build');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
  for (const v of job.variables as { key: string; value: string }[]) env[v.key] = v.value;
  const parts: Buffer[] = [Buffer.from(`Running with gitlab-runner ${RUNNER_INFO.version}\nFetching changes...\n`)];
  const clone = await sh(`git clone --quiet "$REPO" build && cd build && git checkout --quiet "$SHA"`, { cwd: base, env: { ...env, REPO: job.git_info.repo_url, SHA: job.git_info.sha } });
  parts.push(clone.output);
  if (clone.code !== 0) return { log: Buffer.concat(parts), exitCode: clone.code, dir };
  const script = job.steps.find((s: any) => s.name === 'script');
  const run = await sh((script?.script ?? []).join('\n'), { cwd: dir, env: { ...env, CI_PROJECT_DIR: dir } });
  parts.push(run.output);
  return { log: Buffer.concat(parts), exitCode: run.code, dir };
}
