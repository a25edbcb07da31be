// The webhook queue as the delivery worker (src/workers/webhook-worker.ts) works it: claim due attempts
// under a lease, record each outcome, release what it will not finish, and change an endpoint's state.
import {
  claimDeliveries,
  completeDelivery,
  disableEndpoint,
  findEndpointsForDelivery,
  insertDeliveries,
  releaseDeliveries,
  updateEndpoint,
} from './webhooks.repository.js';

export const webhookQueue = {
  claimDeliveries,
  completeDelivery,
  disableEndpoint,
  findEndpointsForDelivery,
  insertDeliveries,
  releaseDeliveries,
  updateEndpoint,
};
