import type { AlertRow } from '../../db/repos/alerts.js';
import { customFields } from '../../domain/alerts/payload.js';
import type { IntegrationView } from '../../domain/alerts/service.js';

export const presentIntegration = (v: IntegrationView) => ({
  id: v.row.id,
  name: v.row.name,
  active: v.row.active === 1,
  type: 'http' as const,
  url: v.url,
  created_at: v.row.created_at,
  updated_at: v.row.updated_at,
  ...(v.token ? { token: v.token } : {}),
});

export const presentAlert = (a: AlertRow) => ({
  id: a.id,
  iid: a.iid,
  project_id: a.project_id,
  title: a.title,
  description: a.description,
  severity: a.severity,
  status: a.status,
  service: a.service,
  monitoring_tool: a.monitoring_tool,
  environment_name: a.environment_name,
  hosts: JSON.parse(a.hosts) as string[],
  fingerprint: a.fingerprint,
  event_count: a.events,
  started_at: a.started_at,
  ended_at: a.ended_at,
  created_at: a.created_at,
  updated_at: a.updated_at,
  details: customFields(JSON.parse(a.payload) as Record<string, unknown>),
});

export const presentNotified = (a: AlertRow) => [{ iid: a.iid, title: a.title }];
