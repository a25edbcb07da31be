// The face of the imports module: what the composition (routes, the imports worker) and the MCP server use.
export { ImportRowSchema, ImportSchema } from './imports.schemas.js';
export { onImportQueued, runImportsPass } from './imports.service.js';
export type { Dispatch as ImportDispatch } from './import-rows.js';
