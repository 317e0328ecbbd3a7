// The Milestone resource (the reference's Entities::Milestone): project_id or group_id, whichever owns it.
import { Type as T } from '@sinclair/typebox';
import { DateOnly, Nullable, Timestamp } from '../schemas.js';

const fields = {
  title: T.String(),
  description: Nullable(T.String()),
  state: T.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  due_date: Nullable(DateOnly),
  start_date: Nullable(DateOnly),
  expired: T.Boolean(),
  web_url: T.String(),
};

export const ProjectMilestone = T.Object({ id: T.Integer(), iid: T.Integer(), project_id: T.Integer(), ...fields });
export const GroupMilestone = T.Object({ id: T.Integer(), iid: T.Integer(), group_id: T.Integer(), ...fields });
export const Milestone = T.Union([ProjectMilestone, GroupMilestone]);
