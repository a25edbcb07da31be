// The face of the api-keys module: what other modules, the workers and the composition may use. The rest is private.
export { apiKeyAuthenticator } from './authentication.js';
export { ApiKeySchema } from './api-keys.schemas.js';
export {
  createApiKey,
  type CreatedApiKey,
  listAccountApiKeys,
  revokeApiKey,
} from './api-keys.service.js';
export { hashApiKey } from './secrets.js';
