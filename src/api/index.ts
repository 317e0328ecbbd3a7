// Every API route, by area. An area adds one line here.
import type { ApiRoute } from '../http/route.js';
import { branchRoutes } from './branches/routes.js';
import { protectedBranchRoutes } from './protected_branches/routes.js';
import { customAttributeRoutes } from './custom_attributes/routes.js';
import { eventRoutes } from './events/routes.js';
import { groupRoutes } from './groups/routes.js';
import { jobRoutes } from './jobs/routes.js';
import { memberRoutes } from './members/routes.js';
import { metaRoutes } from './meta/routes.js';
import { namespaceRoutes } from './namespaces/routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { pipelineRoutes } from './pipelines/routes.js';
import { projectRoutes } from './projects/routes.js';
import { projectHookRoutes } from './projects/hooks_routes.js';
import { projectSharingRoutes } from './projects/sharing_routes.js';
import { projectUploadRoutes } from './projects/uploads_routes.js';
import { projectForkRoutes } from './projects/forks_routes.js';
import { projectLifecycleRoutes } from './projects/lifecycle_routes.js';
import { projectStarRoutes } from './projects/stars_routes.js';
import { repositoryRoutes } from './repository/routes.js';
import { searchRoutes } from './search/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { signupRoutes } from './signup/routes.js';
import { accessTokenRoutes } from './tokens/resource_routes.js';
import { tokenRoutes } from './tokens/routes.js';
import { userRoutes } from './users/routes.js';

export const allRoutes: ApiRoute<any>[] = [...metaRoutes, ...userRoutes, ...tokenRoutes, ...oauthRoutes, ...settingsRoutes, ...projectRoutes, ...projectUploadRoutes, ...projectSharingRoutes, ...accessTokenRoutes, ...projectHookRoutes, ...projectStarRoutes, ...projectForkRoutes, ...projectLifecycleRoutes, ...repositoryRoutes, ...branchRoutes, ...protectedBranchRoutes, ...groupRoutes, ...memberRoutes, ...namespaceRoutes, ...customAttributeRoutes, ...eventRoutes, ...searchRoutes, ...signupRoutes, ...jobRoutes, ...pipelineRoutes];
