import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import { actionName, type EventView } from '../../domain/events/service.js';
import { presentUserBasic } from '../users/present.js';
import type { Event } from './schemas.js';

export function presentEvent(c: Container, { row: e, author, push }: EventView): Static<typeof Event> {
  return {
    id: e.id,
    title: null,
    project_id: e.project_id,
    action_name: actionName(e, push),
    target_id: e.target_id,
    // A target without an iid of its own is named by its id, as the reference does.
    target_iid: e.target_iid ?? e.target_id,
    target_type: e.target_type,
    author_id: e.author_id,
    target_title: e.target_title,
    created_at: e.created_at,
    ...(author ? { author: presentUserBasic(c, author) } : {}),
    ...(push
      ? {
          push_data: {
            commit_count: push.commit_count,
            action: push.action,
            ref_type: push.ref_type,
            commit_from: push.commit_from,
            commit_to: push.commit_to,
            ref: push.ref,
            commit_title: push.commit_title,
          },
        }
      : {}),
    author_username: author?.username ?? null,
  };
}
