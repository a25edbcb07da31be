// The face of the events module: what other modules, the workers and the composition may use. The rest is private.
export { currentChangeCursor, noteFeedChange, pruneDeletedChanges } from './changes.repository.js';
export { findEventsForDelivery, pruneEvents } from './events.repository.js';
export { ActorSchema, EventSchema } from './events.schemas.js';
export {
  appSubscriptions,
  completeEventObjectsWith,
  pendingAttempt,
  presentEvent,
  previousAttributes,
  recordChange,
  recordEvent,
  recordEvents,
} from './events.service.js';
export { signatureHeader } from './signing.js';
export { type AttemptResult, attemptWebhook } from './webhook-sender.js';
export { WebhookDeliverySchema, WebhookEndpointSchema } from './webhooks.schemas.js';
export { presentEndpoint } from './webhooks.service.js';
export { webhookQueue } from './webhook-queue.js';
export { endpointService, resendEvent } from './webhooks.service.js';
export { DEFAULT_MAX_WEBHOOK_ENDPOINTS } from './webhooks.service.js';
export {
  type AppWebhook,
  disableAppEndpoints,
  endInstallEndpoint,
  type InstallOfApp,
  listAppDeliveries,
  rotateAppEndpointSecrets,
  syncAppEndpoints,
  syncInstallEndpoint,
} from './app-endpoints.js';
export { checkEndpointUrl } from './webhooks.service.js';
