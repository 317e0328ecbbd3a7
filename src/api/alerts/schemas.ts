// Alert integrations and alerts over REST. The reference has both in GraphQL only; these shapes
// carry its fields (AlertManagementHttpIntegration, AlertManagementAlert) in the v4 style.
import { Type as T } from '@sinclair/typebox';
import { ALERT_STATUSES } from '../../domain/alerts/service.js';
import { SEVERITIES } from '../../domain/alerts/payload.js';
import { Nullable, OneOf, Timestamp } from '../schemas.js';

const integrationFields = {
  id: T.Integer(),
  name: T.String(),
  active: T.Boolean(),
  type: T.Literal('http'),
  url: T.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const AlertIntegration = T.Object(integrationFields);
/** Right after creation or a key reset: the key, shown this once. */
export const AlertIntegrationWithKey = T.Object({ ...integrationFields, token: T.String() });

export const Alert = T.Object({
  id: T.Integer(),
  iid: T.Integer(),
  project_id: T.Integer(),
  title: T.String(),
  description: Nullable(T.String()),
  severity: OneOf(SEVERITIES),
  status: OneOf(ALERT_STATUSES),
  service: Nullable(T.String()),
  monitoring_tool: Nullable(T.String()),
  environment_name: Nullable(T.String()),
  hosts: T.Array(T.String()),
  fingerprint: T.String(),
  event_count: T.Integer(),
  started_at: Timestamp,
  ended_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  /** The payload's custom fields, as sent (nested objects kept). */
  details: T.Object({}, { additionalProperties: true }),
});

/** The notify answer (since 14.5): the alerts the payload created or touched. */
export const NotifiedAlert = T.Object({ iid: T.Integer(), title: T.String() });
