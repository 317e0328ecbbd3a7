// POST /projects/:id/import_project_members/:project_id: copies the direct members of a source
// project into the target, as the reference's ProjectTeam#import does: people already direct
// members of the target are left as they are; the others come with their role and expiry.
import type { Container } from '../context.js';
import { findMemberRow, insertMember, updateMember } from '../../db/repos/members.js';
import { liveHumanMembersOf } from '../../db/repos/project_members.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, unprocessable } from '../errors.js';
import { recordEvent } from '../events/service.js';
import { nowIso, today } from '../../shared/time.js';
import { canAdminProject } from './policy.js';
import { findProject } from './find.js';

export async function importProjectMembers(c: Container, actor: Actor, targetIdOrPath: number | string, sourceId: number): Promise<{ status: 'success' }> {
  const { row: target, access } = await findProject(c, actor, targetIdOrPath);
  if (!canAdminProject(access)) throw forbidden();
  const { row: source } = await findProject(c, actor, sourceId);

  const now = nowIso();
  try {
    for (const m of await liveHumanMembersOf(c.db, source.id, today())) {
      const existing = await findMemberRow(c.db, { type: 'Project', id: target.id }, m.user_id);
      const fields = { access_level: m.access_level, expires_at: m.expires_at, created_by_id: actor.user.id, created_at: now, updated_at: now };
      if (!existing) await insertMember(c.db, { source_type: 'Project', source_id: target.id, user_id: m.user_id, ...fields });
      // An expired membership counts as none: it is replaced.
      else if (existing.expires_at !== null && existing.expires_at <= today()) await updateMember(c.db, existing.id, fields);
      else continue;
      await recordEvent(c, { action: 'joined', authorId: m.user_id, projectId: target.id });
    }
  } catch (err) {
    c.log.error({ err }, 'import of project members failed');
    throw unprocessable('Import failed');
  }
  return { status: 'success' };
}
