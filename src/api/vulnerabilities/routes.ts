// Vulnerability findings and vulnerabilities (the reference's 15.1 API; flagged unstable there).
import { Type as T } from '@sinclair/typebox';
import { mapPage } from '../../shared/page.js';
import {
  CONFIDENCE_LEVELS,
  FINDING_REPORT_TYPES,
  SEVERITY_LEVELS,
  changeVulnerabilityState,
  createVulnerabilityFromFinding,
  getVulnerability,
  listFindings,
  listVulnerabilities,
  type VulnerabilityAction,
} from '../../domain/vulnerabilities/service.js';
import { route } from '../../http/route.js';
import { CommaList, IdOrPath, OneOf } from '../schemas.js';
import { presentFinding, presentVulnerability } from './present.js';
import { Finding, Vulnerability } from './schemas.js';

const TAG = 'vulnerabilities';

const stateChange = (action: VulnerabilityAction, summary: string) =>
  route({
    method: 'POST',
    path: `/vulnerabilities/:id/${action}`,
    tag: TAG,
    summary,
    params: T.Object({ id: T.Integer() }),
    response: Vulnerability,
    handler: async ({ c, actor, input }) => presentVulnerability(await changeVulnerabilityState(c, actor, input.id, action)),
  });

export const vulnerabilityRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/vulnerability_findings',
    tag: TAG,
    summary: "The findings of the project's latest default-branch pipeline with security reports, or of `pipeline_id` (developers and above)",
    params: T.Object({
      id: IdOrPath,
      report_type: T.Optional(CommaList(OneOf(FINDING_REPORT_TYPES))),
      scope: T.Optional(OneOf(['all', 'dismissed'] as const, { default: 'dismissed' })),
      severity: T.Optional(CommaList(OneOf(SEVERITY_LEVELS))),
      confidence: T.Optional(CommaList(OneOf(CONFIDENCE_LEVELS))),
      pipeline_id: T.Optional(T.String()),
    }),
    response: Finding,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...filter } = input;
      return mapPage(await listFindings(c, actor, id, filter, page), presentFinding);
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/vulnerabilities',
    tag: TAG,
    summary: "A project's vulnerabilities, most severe first (developers and above)",
    params: T.Object({ id: IdOrPath }),
    response: Vulnerability,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listVulnerabilities(c, actor, input.id, page), presentVulnerability),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/vulnerabilities',
    tag: TAG,
    summary: 'Create a vulnerability from a finding (author: the caller; title, severity, confidence: the finding’s; state detected)',
    params: T.Object({ id: IdOrPath, finding_id: T.Integer() }),
    response: Vulnerability,
    handler: async ({ c, actor, input }) => presentVulnerability(await createVulnerabilityFromFinding(c, actor, input.id, input.finding_id)),
  }),
  route({
    method: 'GET',
    path: '/vulnerabilities/:id',
    tag: TAG,
    summary: 'One vulnerability',
    params: T.Object({ id: T.Integer() }),
    response: Vulnerability,
    handler: async ({ c, actor, input }) => presentVulnerability(await getVulnerability(c, actor, input.id)),
  }),
  stateChange('confirm', 'Confirm a vulnerability (confirmed; 304 when it already is)'),
  stateChange('resolve', 'Resolve a vulnerability (resolved_by_id, resolved_at; 304 when it already is)'),
  stateChange('dismiss', 'Dismiss a vulnerability (dismissed_by_id, dismissed_at; 304 when it already is)'),
  stateChange('revert', 'Revert a vulnerability to detected (clears the resolved and dismissed stamps; 304 when it is detected)'),
];
