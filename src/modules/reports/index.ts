// The face of the reports module (docs/api-contract.md §24): what the MCP server and the composition may use.
// The rest is private.
export { onOneSnapshot, pageOf, type Standing, standingOf } from './reports.common.js';
export { jobProfitability } from './reports.jobs.js';
export { agedReceivables, clientStatement } from './reports.receivables.js';
export { revenue, taxSummary } from './reports.revenue.js';
export {
  AgedReceivablesQuery,
  AgedReceivablesReportSchema,
  ClientStatementReportSchema,
  JobProfitabilityQuery,
  JobProfitabilityReportSchema,
  type Report,
  RevenueQuery,
  RevenueReportSchema,
  TaxSummaryReportSchema,
} from './reports.schemas.js';
