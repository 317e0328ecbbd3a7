// Every page, by where it lives. A new page joins its area's list; an area's list joins here.
import type { ProjectPage, SitePage } from '../page.js';
import { groupPages } from './groups.js';
import { projectOverviewPages } from './project.js';
import { signInPages } from './sign_in.js';
import { sitePages as dashboardPages } from './site.js';

export const sitePages: SitePage[] = [...signInPages, ...dashboardPages, ...groupPages];

export const projectPages: ProjectPage[] = [...projectOverviewPages];
