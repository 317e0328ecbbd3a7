// Milestone views → the API's Milestone shape.
import type { Container } from '../../domain/context.js';
import type { MilestoneView } from '../../domain/milestones/service.js';

export function presentMilestone(c: Container, v: MilestoneView) {
  const r = v.row;
  const owner = r.project_id !== null ? { project_id: r.project_id } : { group_id: r.group_id! };
  const web = r.project_id !== null ? `${c.config.externalUrl}/${v.parentPath}/-/milestones/${r.iid}` : `${c.config.externalUrl}/groups/${v.parentPath}/-/milestones/${r.iid}`;
  return {
    id: r.id,
    iid: r.iid,
    ...owner,
    title: r.title,
    description: r.description,
    state: r.state,
    created_at: r.created_at,
    updated_at: r.updated_at,
    due_date: r.due_date,
    start_date: r.start_date,
    expired: v.expired,
    web_url: web,
  };
}
