// The face of the apps module: what the composition may use. The rest is private.
export { AppDeliverySchema, AppInstallSchema, AppSchema, InstallLinkSchema } from './apps.schemas.js';
export { type AppSettings } from './settings.js';
export { accessTokenAuthenticator, isAccessToken } from './token-auth.js';
export { uninstall } from './uninstall.js';
export { disableAppWebhook } from './apps.service.js';
export {
  type InstallRateLimits,
  setInstallLimits,
  suspend,
  type Suspension,
  unsuspend,
  type Unsuspension,
} from './operator.js';
export { uninstallLapsed } from './lapsed-installs.js';
