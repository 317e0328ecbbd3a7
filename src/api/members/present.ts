import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { MemberView } from '../../domain/members/service.js';
import { presentUserBasic } from '../users/present.js';
import type { Member } from './schemas.js';

export function presentMember(c: Container, m: MemberView): Static<typeof Member> {
  return {
    ...presentUserBasic(c, m.user),
    access_level: m.row.access_level,
    created_at: m.row.created_at,
    // the reference leaves created_by out when nobody is recorded
    ...(m.createdBy ? { created_by: presentUserBasic(c, m.createdBy) } : {}),
    expires_at: m.row.expires_at,
    membership_state: 'active',
  };
}
