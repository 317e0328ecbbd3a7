// Every page, by where it lives. A new page joins its area's list; an area's list joins here.
import type { ProjectPage, SitePage } from '../page.js';
import { alertPages } from './alerts.js';
import { ciPages } from './ci.js';
import { ciArtifactPages } from './ci_artifacts.js';
import { groupPages } from './groups.js';
import { hookPages } from './hooks.js';
import { memberPages } from './members.js';
import { projectOverviewPages } from './project.js';
import { projectSettingsPages } from './project_settings.js';
import { importProjectPages, importSitePages } from './project_settings_import.js';
import { repositoryPages } from './repository.js';
import { repositoryBranchPages } from './repository_branches.js';
import { repositoryCommitPages } from './repository_commits.js';
import { refSwitchPages } from './repository_refs.js';
import { signInPages } from './sign_in.js';
import { sitePages as dashboardPages } from './site.js';

export const sitePages: SitePage[] = [...signInPages, ...dashboardPages, ...groupPages, ...importSitePages];

export const projectPages: ProjectPage[] = [
  ...projectOverviewPages,
  ...projectSettingsPages,
  ...importProjectPages,
  ...memberPages,
  ...hookPages,
  ...alertPages,
  ...repositoryPages,
  ...repositoryCommitPages,
  ...repositoryBranchPages,
  ...refSwitchPages,
  ...ciPages,
  ...ciArtifactPages,
];
