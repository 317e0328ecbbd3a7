// Every page, by where it lives. A new page joins its area's list; an area's list joins here.
import type { ProjectPage, SitePage } from '../page.js';
import { adminPages } from './admin.js';
import { adminHookPages } from './admin_hooks.js';
import { adminModePages } from './admin_mode.js';
import { adminSettingsPages } from './admin_settings.js';
import { adminUserPages } from './admin_users.js';
import { alertPages } from './alerts.js';
import { ciPages } from './ci.js';
import { ciArtifactPages } from './ci_artifacts.js';
import { scheduleWebPages } from './ci_schedules.js';
import { ciSettingsPages } from './ci_settings.js';
import { groupPages } from './groups.js';
import { hookPages } from './hooks.js';
import { memberPages } from './members.js';
import { profilePages } from './profile.js';
import { projectOverviewPages } from './project.js';
import { projectActivityPages } from './project_activity.js';
import { projectSettingsPages } from './project_settings.js';
import { importProjectPages, importSitePages } from './project_settings_import.js';
import { repositoryPages } from './repository.js';
import { repositoryArchivePages } from './repository_archive.js';
import { adminRunnerPages, projectRunnerPages } from './runners.js';
import { repositoryBranchPages } from './repository_branches.js';
import { repositoryCommitPages } from './repository_commits.js';
import { refSwitchPages } from './repository_refs.js';
import { signInPages } from './sign_in.js';
import { sitePages as dashboardPages } from './site.js';

export const sitePages: SitePage[] = [
  ...signInPages,
  ...dashboardPages,
  ...groupPages,
  ...importSitePages,
  ...adminPages,
  ...adminModePages,
  ...adminSettingsPages,
  ...adminHookPages,
  ...adminUserPages,
  ...adminRunnerPages,
  ...profilePages,
];

export const projectPages: ProjectPage[] = [
  ...projectOverviewPages,
  ...projectActivityPages,
  ...projectSettingsPages,
  ...importProjectPages,
  ...memberPages,
  ...hookPages,
  ...alertPages,
  ...repositoryPages,
  ...repositoryArchivePages,
  ...repositoryCommitPages,
  ...repositoryBranchPages,
  ...refSwitchPages,
  ...ciPages,
  ...ciArtifactPages,
  ...scheduleWebPages,
  ...ciSettingsPages,
  ...projectRunnerPages,
];
