// The face of db/: all that code above it may use, with the row types (types.ts). The rest of the folder,
// the two engines' wings (sqlite/, postgres/) above all, is private: scripts/check-imports.mjs refuses an
// import of anything else from outside db/.
export { latestPerParent, lockedIf, lockRows, timeBoundConditions, type TimeBounds } from './account-rows.js';
export { openDatabase, type Database, type Db, type Executor } from './database.js';
export { deferredWrite, type DeferredWrite, type DeferredWriteCall } from './deferred-write.js';
export {
  claimLock,
  failureEndsTransaction,
  inReadSnapshot,
  joinableInstant,
  joinedText,
  jsonText,
  keepsDerivedColumns,
  oneLargeWriteAtATime,
  plannedEachTime,
  orderedJsonArray,
  readsCommittedVersions,
  readsHoldTheLoop,
  readsTogether,
  rowsHoldingAny,
  rowsHoldingAnyQuery,
  statementsAreRoundTrips,
  survivingFailure,
  textSearch,
} from './engine.js';
export {
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  insertIdempotencyKey,
  completeIdempotencyKey,
  deleteIdempotencyKey,
  type IdempotencyKeyRow,
} from './idempotency.repository.js';
export {
  applyPage,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SORT,
  MAX_PAGE_SIZE,
  mapPage,
  pageRequest,
  sortKeyOf,
  timestampSorts,
  toPage,
  type Page,
  type PageQuery,
  type PageRequest,
  type SortFields,
  type SortKey,
} from './keyset.js';
export {
  compare,
  conditionsOf,
  fenced,
  keysOf,
  listPlan,
  runList,
  unestimated,
  unindexed,
  unseen,
  WALK_LIMIT,
  type Condition,
  type ListPlan,
  type Listed,
  type ShapedCondition,
} from './list-plan.js';
export { listByShape, StatementShapes, type StatementValue } from './list-shapes.js';
export { migrateToLatest } from './migrate.js';
export { prepared, readValues } from './prepared.js';
export { preparedInsert, preparedInsertRows } from './prepared-insert.js';
export { outboxQueueStats, webhookQueueStats, type QueueStats } from './queue-stats.js';
export { coalesceSort, SORT_SENTINELS } from './sort-sentinels.js';
export { BackupError, backupSqlite, restoreSqlite } from './sqlite/sqlite-backup.js';
export { sqliteFiles } from './sqlite/sqlite.js';
export { readDataVersion } from './sqlite/sqlite-statements.js';
export { type Among, type SearchedTable, type TextSearch } from './text-search.js';
export { fromJson, fromJsonShared, normalizeInstant } from './values.js';
