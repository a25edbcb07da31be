// The face of the api-keys module: what other modules, the workers and the composition may use. The rest is private.
export {
  apiKeyAuthenticator,
  createApiKey,
  type CreatedApiKey,
  listAccountApiKeys,
  revokeApiKey,
} from './api-keys.service.js';
