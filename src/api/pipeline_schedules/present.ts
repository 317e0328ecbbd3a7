// Schedule views → the API's schedule shapes.
import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { ScheduleDetailsView, ScheduleView } from '../../domain/ci/pipeline_schedules.js';
import { presentPipelineBasic } from '../pipelines/present.js';
import { presentUserBasic } from '../users/present.js';
import type { PipelineSchedule, PipelineScheduleDetails } from './schemas.js';

export const presentSchedule = (c: Container, v: ScheduleView): Static<typeof PipelineSchedule> => ({
  id: v.row.id,
  description: v.row.description,
  ref: v.row.ref,
  cron: v.row.cron,
  cron_timezone: v.row.cron_timezone,
  next_run_at: v.row.next_run_at,
  active: v.row.active === 1,
  created_at: v.row.created_at,
  updated_at: v.row.updated_at,
  owner: v.owner ? presentUserBasic(c, v.owner) : null,
});

export const presentScheduleDetails = (c: Container, v: ScheduleDetailsView): Static<typeof PipelineScheduleDetails> => ({
  ...presentSchedule(c, v),
  last_pipeline: v.lastPipeline ? presentPipelineBasic(c, { project: v.project, pipeline: v.lastPipeline }) : null,
  ...(v.variables ? { variables: v.variables } : {}),
});
