// Alert integrations (HTTP endpoints): set up by maintainers, each with a notify URL and a key;
// payloads posted there become alerts, grouped by fingerprint. Alerts are read and their status
// changed by developers.
import crypto from 'node:crypto';
import type { Container } from '../context.js';
import {
  deleteIntegration,
  findAlertByIid,
  findIntegration,
  findIntegrationByEndpoint,
  findOpenAlert,
  insertIntegration,
  integrationsOf,
  pageAlerts,
  recordAlert,
  updateAlert,
  updateIntegration,
  type AlertFilter,
  type AlertIntegrationRow,
  type AlertRow,
} from '../../db/repos/alerts.js';
import { findProjectByFullPath, type ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound, payloadTooLarge, unauthorized, unprocessable, validation } from '../errors.js';
import { findProjectAllowed } from '../projects/find.js';
import { digest } from '../shared/secrets.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH, depthOf, parseAlertPayload } from './payload.js';
import { canManageAlertIntegrations, canReadAlerts, canSendTestAlert, canUpdateAlerts } from './policy.js';

export const ALERT_STATUSES = ['triggered', 'acknowledged', 'resolved', 'ignored'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export interface IntegrationView {
  row: AlertIntegrationRow;
  url: string;
  /** The key: only right after creation or a reset. */
  token?: string;
}

/** The reference's `parameterize` of the name: the notify URL's readable segment. */
const nameSlug = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '') || 'http-endpoint';

const notifyUrl = (c: Container, p: ProjectRow, i: AlertIntegrationRow): string =>
  `${c.config.externalUrl}/${p.full_path}/-/alerts/notify/${nameSlug(i.name)}/${i.endpoint_identifier}.json`;

const view = (c: Container, p: ProjectRow, row: AlertIntegrationRow, token?: string): IntegrationView => ({ row, url: notifyUrl(c, p, row), ...(token ? { token } : {}) });

const newKey = (): string => crypto.randomBytes(16).toString('hex');

function checkName(name: string): string {
  const v = name.trim();
  if (v === '') throw validation({ name: ["can't be blank"] });
  if (v.length > 255) throw validation({ name: ['is too long (maximum is 255 characters)'] });
  return v;
}

async function managedIntegration(c: Container, actor: Actor, idOrPath: number | string, integrationId: number) {
  const project = await findProjectAllowed(c, actor, idOrPath, canManageAlertIntegrations);
  const row = await findIntegration(c.db, project.id, integrationId);
  if (!row) throw notFound('Integration');
  return { project, row };
}

export async function listIntegrations(c: Container, actor: Actor, idOrPath: number | string): Promise<IntegrationView[]> {
  const project = await findProjectAllowed(c, actor, idOrPath, canManageAlertIntegrations);
  return (await integrationsOf(c.db, project.id)).map((r) => view(c, project, r));
}

export async function createIntegration(c: Container, actor: Actor, idOrPath: number | string, input: { name: string; active?: boolean }): Promise<IntegrationView> {
  const project = await findProjectAllowed(c, actor, idOrPath, canManageAlertIntegrations);
  const name = checkName(input.name);
  const token = newKey();
  const now = nowIso();
  const row = await insertIntegration(c.db, {
    project_id: project.id,
    name,
    active: input.active === false ? 0 : 1,
    endpoint_identifier: crypto.randomBytes(8).toString('hex'),
    token_digest: digest(token),
    created_at: now,
    updated_at: now,
  });
  return view(c, project, row, token);
}

export async function changeIntegration(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  integrationId: number,
  input: { name?: string; active?: boolean },
): Promise<IntegrationView> {
  const { project, row } = await managedIntegration(c, actor, idOrPath, integrationId);
  const updated = await updateIntegration(c.db, row.id, {
    ...(input.name !== undefined ? { name: checkName(input.name) } : {}),
    ...(input.active !== undefined ? { active: input.active ? 1 : 0 } : {}),
    updated_at: nowIso(),
  });
  return view(c, project, updated);
}

/** A new key; the old one stops working at once. */
export async function resetIntegrationKey(c: Container, actor: Actor, idOrPath: number | string, integrationId: number): Promise<IntegrationView> {
  const { project, row } = await managedIntegration(c, actor, idOrPath, integrationId);
  const token = newKey();
  return view(c, project, await updateIntegration(c.db, row.id, { token_digest: digest(token), updated_at: nowIso() }), token);
}

export async function removeIntegration(c: Container, actor: Actor, idOrPath: number | string, integrationId: number): Promise<void> {
  const { row } = await managedIntegration(c, actor, idOrPath, integrationId);
  await deleteIntegration(c.db, row.id);
}

/** A payload's own checks: a JSON object within the reference's size limits. */
function checkPayload(payload: unknown): Record<string, unknown> {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw unprocessable('The payload must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES || depthOf(payload) > MAX_PAYLOAD_DEPTH) throw payloadTooLarge();
  return payload as Record<string, unknown>;
}

/** Stores one payload as an alert (or an occurrence of an open one) in one transaction. */
async function process(c: Container, projectId: number, integrationId: number, payload: Record<string, unknown>): Promise<AlertRow> {
  const now = nowIso();
  const a = parseAlertPayload(payload, now);
  return recordAlert(c.db, {
    row: {
      project_id: projectId,
      integration_id: integrationId,
      title: a.title,
      description: a.description,
      service: a.service,
      monitoring_tool: a.monitoring_tool,
      environment_name: a.environment_name,
      hosts: JSON.stringify(a.hosts),
      severity: a.severity,
      status: 'triggered',
      fingerprint: a.fingerprint,
      payload: JSON.stringify(payload),
      started_at: a.startedAt,
      ended_at: null,
      created_at: now,
      updated_at: now,
    },
    endedAt: a.endedAt,
  });
}

const keyMatches = (row: AlertIntegrationRow, key: string | null): boolean =>
  key !== null && crypto.timingSafeEqual(Buffer.from(row.token_digest, 'hex'), Buffer.from(digest(key), 'hex'));

/**
 * POST to a notify URL. In the reference's order: the project (404), the payload's size (413),
 * an active integration at that endpoint (403), the key (401), then the payload itself (422).
 */
export async function notify(c: Container, fullPath: string, endpointIdentifier: string, key: string | null, payload: unknown): Promise<AlertRow> {
  // The key stands in for a user: the project is found by its path whatever its visibility.
  const project = await findProjectByFullPath(c.db, fullPath);
  if (!project) throw notFound('Project');
  if (payload !== null && typeof payload === 'object' && Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES) throw payloadTooLarge();
  const integration = await findIntegrationByEndpoint(c.db, project.id, endpointIdentifier);
  if (!integration || integration.active !== 1) throw forbidden();
  if (!keyMatches(integration, key)) throw unauthorized();
  return process(c, project.id, integration.id, checkPayload(payload));
}

/** A test alert (spec, Authentication 6: developers and above) through one of the project's integrations. */
export async function sendTestAlert(c: Container, actor: Actor, idOrPath: number | string, integrationId: number, payload: unknown): Promise<AlertRow> {
  const project = await findProjectAllowed(c, actor, idOrPath, canSendTestAlert);
  const integration = await findIntegration(c.db, project.id, integrationId);
  if (!integration) throw notFound('Integration');
  if (integration.active !== 1) throw forbidden();
  return process(c, project.id, integration.id, checkPayload(payload ?? {}));
}

export async function listAlerts(c: Container, actor: Actor, idOrPath: number | string, filter: AlertFilter, page: PageRequest): Promise<PageResult<AlertRow>> {
  const project = await findProjectAllowed(c, actor, idOrPath, canReadAlerts);
  return pageAlerts(c.db, project.id, filter, page);
}

async function findAlert(c: Container, project: ProjectRow, iid: number): Promise<AlertRow> {
  const row = await findAlertByIid(c.db, project.id, iid);
  if (!row) throw notFound('Alert');
  return row;
}

export async function getAlert(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<AlertRow> {
  return findAlert(c, await findProjectAllowed(c, actor, idOrPath, canReadAlerts), iid);
}

/**
 * Sets an alert's status. Resolving stamps `ended_at`; leaving `resolved` clears it, unless
 * another alert of the same fingerprint is open (one open alert per fingerprint).
 */
export async function setAlertStatus(c: Container, actor: Actor, idOrPath: number | string, iid: number, status: AlertStatus): Promise<AlertRow> {
  const project = await findProjectAllowed(c, actor, idOrPath, canUpdateAlerts);
  const alert = await findAlert(c, project, iid);
  if (alert.status === status) return alert;
  const now = nowIso();
  if (status === 'resolved') return updateAlert(c.db, alert.id, { status, ended_at: now, updated_at: now });
  if (alert.status === 'resolved' && (await findOpenAlert(c.db, project.id, alert.fingerprint))) {
    throw validation({ status: ['An alert with the same fingerprint is already open. Resolve it before reopening this one.'] });
  }
  return updateAlert(c.db, alert.id, { status, ended_at: null, updated_at: now });
}
