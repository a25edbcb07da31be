// The face of the availability module (docs/api-contract.md §28): what the composition, the MCP server and the
// visits routes (handed `bookHold` by app.ts) may use. The rest is private.
export { AvailabilityExceptionSchema } from './exceptions.schemas.js';
export {
  AvailabilityQuery,
  CreateHoldBody,
  HoldSchema,
  type Hold,
  SlotSchema,
  type Slot,
} from './availability.schemas.js';
export { listSlots } from './availability.service.js';
export {
  bookHold,
  type BookingInput,
  createHold,
  getHold,
  presentHold,
  releaseHold,
  resolveHold,
} from './holds.service.js';
export { findHoldOfKey } from './availability.repository.js';
