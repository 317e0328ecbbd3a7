// How many open and closed issues (and open merge requests) carry each label, among those the
// caller may see (the reference counts through its issue finder, as the caller).
import type { Container } from '../context.js';
import { labelIssueCountRows, projectsOfLabelledIssues, type LabelRow } from '../../db/repos/labels.js';
import { findProjectsByIds } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { canReadConfidentialIssues, canReadIssues } from '../issues/policy.js';
import { projectAccess } from '../projects/policy.js';
import type { LabelCounts } from './service.js';

export async function labelIssueCounts(c: Container, actor: Actor | null, labels: LabelRow[]): Promise<Map<number, LabelCounts>> {
  const ids = labels.map((l) => l.id);
  const projects = await findProjectsByIds(c.db, await projectsOfLabelledIssues(c.db, ids));
  const readable: number[] = [];
  const confidential: number[] = [];
  for (const p of projects) {
    const access = await projectAccess(c, actor, p);
    if (!canReadIssues(p, access)) continue;
    readable.push(p.id);
    if (canReadConfidentialIssues(access)) confidential.push(p.id);
  }
  const out = new Map<number, LabelCounts>();
  for (const r of await labelIssueCountRows(c.db, ids, readable, confidential, actor?.user.id ?? null)) {
    const counts = out.get(r.label_id) ?? { open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0 };
    if (r.state === 'opened') counts.open_issues_count += r.n;
    else if (r.state === 'closed') counts.closed_issues_count += r.n;
    out.set(r.label_id, counts);
  }
  return out;
}
