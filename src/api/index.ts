// Every API route, by area. An area adds one line here.
import type { ApiRoute } from '../http/route.js';
import { groupRoutes } from './groups/routes.js';
import { memberRoutes } from './members/routes.js';
import { metaRoutes } from './meta/routes.js';
import { namespaceRoutes } from './namespaces/routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { projectRoutes } from './projects/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { tokenRoutes } from './tokens/routes.js';
import { userRoutes } from './users/routes.js';

export const allRoutes: ApiRoute<any>[] = [...metaRoutes, ...userRoutes, ...tokenRoutes, ...oauthRoutes, ...settingsRoutes, ...projectRoutes, ...groupRoutes, ...memberRoutes, ...namespaceRoutes];
