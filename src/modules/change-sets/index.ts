// The face of the change-sets module: what the routes and the MCP server use. The rest is private.
export {
  ChangeSetSchema,
  CreateChangeSetBody,
  type ChangeSet,
  type CreateChangeSetInput,
} from './change-sets.schemas.js';
export { applyChangeSet, type Dispatch, type Dispatched } from './change-sets.service.js';
