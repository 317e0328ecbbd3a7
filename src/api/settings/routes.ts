import { SETTING_NAMES } from '../../domain/settings/definitions.js';
import { route } from '../../http/route.js';
import { showSettings, updateSettings, type SettingsInput } from '../../domain/settings/service.js';
import { presentSettings } from './present.js';
import { ApplicationSettings, SettingsParams } from './schemas.js';

export const settingsRoutes = [
  route({
    method: 'GET',
    path: '/application/settings',
    admin: true,
    tag: 'settings',
    summary: 'The current application settings (administrators only)',
    response: ApplicationSettings,
    handler: async ({ c, actor }) => presentSettings(await showSettings(c, actor)),
  }),
  route({
    method: 'PUT',
    path: '/application/settings',
    admin: true,
    tag: 'settings',
    summary: 'Change application settings (administrators only)',
    params: SettingsParams,
    paramRules: { atLeastOneOf: [SETTING_NAMES] },
    response: ApplicationSettings,
    handler: async ({ c, actor, input }) => presentSettings(await updateSettings(c, actor, input as SettingsInput)),
  }),
];
