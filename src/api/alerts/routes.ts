// Alert integrations (HTTP endpoints): setup over REST (maintainers), the notify URL that
// receives payloads (the integration's key), test alerts, and the project's alerts.
import { Type as T } from '@sinclair/typebox';
import {
  ALERT_STATUSES,
  changeIntegration,
  createIntegration,
  getAlert,
  listAlerts,
  listIntegrations,
  notify,
  removeIntegration,
  resetIntegrationKey,
  sendTestAlert,
  setAlertStatus,
} from '../../domain/alerts/service.js';
import { mapPage } from '../../shared/page.js';
import { alertKeyOf } from '../../http/auth.js';
import { jsonBodyOf } from '../../http/content.js';
import { ALERT_NOTIFY_PREFIX } from '../../http/project_urls.js';
import { route } from '../../http/route.js';
import { IdOrPath, OneOf } from '../schemas.js';
import { presentAlert, presentIntegration, presentNotified } from './present.js';
import { Alert, AlertIntegration, AlertIntegrationWithKey, NotifiedAlert } from './schemas.js';

const TAG = 'alerts';
const INTEGRATIONS = '/projects/:id/alert_integrations';
const ALERTS = '/projects/:id/alert_management_alerts';
const withIntegration = { id: IdOrPath, integration_id: T.Integer() };

export const alertRoutes = [
  route({
    method: 'GET',
    path: INTEGRATIONS,
    tag: TAG,
    summary: "A project's alert integrations (HTTP endpoints; maintainers and above)",
    params: T.Object({ id: IdOrPath }),
    response: T.Array(AlertIntegration),
    handler: async ({ c, actor, input }) => (await listIntegrations(c, actor, input.id)).map(presentIntegration),
  }),
  route({
    method: 'POST',
    path: INTEGRATIONS,
    tag: TAG,
    summary: 'Create an HTTP endpoint alert integration; the answer shows its key, this once',
    params: T.Object({ id: IdOrPath, name: T.String(), active: T.Optional(T.Boolean()) }),
    response: AlertIntegrationWithKey,
    handler: async ({ c, actor, input }) => presentIntegration(await createIntegration(c, actor, input.id, input)),
  }),
  route({
    method: 'PUT',
    path: `${INTEGRATIONS}/:integration_id`,
    tag: TAG,
    summary: 'Rename, activate or deactivate an alert integration',
    params: T.Object({ ...withIntegration, name: T.Optional(T.String()), active: T.Optional(T.Boolean()) }),
    response: AlertIntegration,
    handler: async ({ c, actor, input }) => presentIntegration(await changeIntegration(c, actor, input.id, input.integration_id, input)),
  }),
  route({
    method: 'POST',
    path: `${INTEGRATIONS}/:integration_id/reset_key`,
    tag: TAG,
    summary: "Replace an alert integration's key; the answer shows the new key, this once",
    params: T.Object(withIntegration),
    response: AlertIntegrationWithKey,
    status: 200,
    handler: async ({ c, actor, input }) => presentIntegration(await resetIntegrationKey(c, actor, input.id, input.integration_id)),
  }),
  route({
    method: 'DELETE',
    path: `${INTEGRATIONS}/:integration_id`,
    tag: TAG,
    summary: 'Delete an alert integration (its alerts stay)',
    params: T.Object(withIntegration),
    status: 204,
    handler: async ({ c, actor, input }) => removeIntegration(c, actor, input.id, input.integration_id),
  }),
  route({
    method: 'POST',
    path: `${INTEGRATIONS}/:integration_id/test_alert`,
    tag: TAG,
    summary: 'Send a test alert (the JSON body is the alert payload) through an integration; developers and above',
    params: T.Object(withIntegration),
    response: T.Array(NotifiedAlert),
    status: 200,
    handler: async ({ c, actor, input, request }) => presentNotified(await sendTestAlert(c, actor, input.id, input.integration_id, jsonBodyOf(request) ?? {})),
  }),
  route({
    method: 'POST',
    path: `${ALERT_NOTIFY_PREFIX}/:path/:name/:endpoint_identifier`,
    outsideApi: true,
    auth: 'optional',
    ownCredentials: true,
    tag: TAG,
    summary:
      'The notify URL of an HTTP endpoint integration: /{project path}/-/alerts/notify/{name}/{endpoint_identifier}.json. ' +
      'Key as `Authorization: Bearer <key>` or HTTP Basic with an empty user and the key as password; the JSON body is the alert payload',
    params: T.Object({ path: T.String(), name: T.String(), endpoint_identifier: T.String() }),
    response: T.Array(NotifiedAlert),
    status: 200,
    handler: async ({ c, input, request }) => presentNotified(await notify(c, input.path, input.endpoint_identifier, alertKeyOf(request), jsonBodyOf(request))),
  }),
  route({
    method: 'GET',
    path: ALERTS,
    tag: TAG,
    summary: "A project's alerts, newest first (status; search: part of title, description, service, monitoring tool or hosts); developers and above",
    params: T.Object({ id: IdOrPath, status: T.Optional(OneOf(ALERT_STATUSES)), search: T.Optional(T.String()) }),
    response: Alert,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listAlerts(c, actor, input.id, { status: input.status, search: input.search }, page), presentAlert),
  }),
  route({
    method: 'GET',
    path: `${ALERTS}/:alert_iid`,
    tag: TAG,
    summary: 'One alert, by its iid',
    params: T.Object({ id: IdOrPath, alert_iid: T.Integer() }),
    response: Alert,
    handler: async ({ c, actor, input }) => presentAlert(await getAlert(c, actor, input.id, input.alert_iid)),
  }),
  route({
    method: 'PUT',
    path: `${ALERTS}/:alert_iid`,
    tag: TAG,
    summary: "Set an alert's status: triggered, acknowledged, resolved or ignored",
    params: T.Object({ id: IdOrPath, alert_iid: T.Integer(), status: OneOf(ALERT_STATUSES) }),
    response: Alert,
    handler: async ({ c, actor, input }) => presentAlert(await setAlertStatus(c, actor, input.id, input.alert_iid, input.status)),
  }),
];
