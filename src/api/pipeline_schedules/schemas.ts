// Pipeline schedules (the reference's Entities::Ci::PipelineSchedule and PipelineScheduleDetails of 15.1).
import { Type as T } from '@sinclair/typebox';
import { PipelineBasic, PipelineVariable } from '../pipelines/schemas.js';
import { Nullable } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

const fields = {
  id: T.Integer(),
  description: T.String(),
  ref: T.String(),
  cron: T.String(),
  cron_timezone: T.String(),
  next_run_at: Nullable(T.String()),
  active: T.Boolean(),
  created_at: T.String(),
  updated_at: T.String(),
  owner: Nullable(UserBasic),
};

export const PipelineSchedule = T.Object(fields);
/** `variables` only for those who may read them (maintainers, the schedule's owner), as the reference exposes them. */
export const PipelineScheduleDetails = T.Object({ ...fields, last_pipeline: Nullable(PipelineBasic), variables: T.Optional(T.Array(PipelineVariable)) });
