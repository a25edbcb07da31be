// The purge of deleted fields' values (docs/api-contract.md §27): a deleted definition is gone from every answer
// and filter at once (deleted_at); its value rows, and its key in each object's custom_fields JSON, go here in
// batches, each in its own transaction, leaving the objects' updated_at alone. When none is left the definition's
// row goes too, and its key is free again. The worker (workers/custom-field-purge-worker.ts) runs the passes; a
// delete wakes it.
import type { Executor } from '../../db/index.js';
import * as repository from './custom-fields.repository.js';
import type { CustomFieldResource } from './custom-fields.schemas.js';

/** Objects cleaned per transaction. */
const BATCH = 500;

const listeners = new Set<() => void>();

/** Hear of deletes of this process (the worker, to start at once); answers the way to stop hearing. */
export function onCustomFieldDeleted(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function wakePurge(): void {
  for (const listener of listeners) listener();
}

/** One batch of the oldest deleted field's values; answers whether there was work (another batch may follow). */
export async function purgeDeletedCustomFields(db: Executor): Promise<boolean> {
  const [field] = await repository.deletedCustomFields(db, 1);
  if (field === undefined) return false;
  const table = repository.KIND_TABLES[field.resource as CustomFieldResource];
  await db.transaction().execute(async (tx) => {
    const ids = await repository.objectsHoldingField(tx, field.account_id, field.id, field.type, BATCH);
    if (ids.length === 0) {
      await repository.deleteCustomFieldRow(tx, field.id);
      return;
    }
    for (const object of await repository.objectsJson(tx, table, field.account_id, ids)) {
      const text =
        typeof object.custom_fields === 'string' ? object.custom_fields : JSON.stringify(object.custom_fields);
      const values = JSON.parse(text) as Record<string, unknown>;
      if (!(field.key in values)) continue;
      delete values[field.key];
      await repository.setObjectJson(tx, table, field.account_id, object.id, JSON.stringify(values));
    }
    await repository.deleteFieldValues(tx, field.account_id, field.id, ids);
  });
  return true;
}

/** Every pending purge to the end (tests, and the worker's pass). */
export async function purgeAllDeletedCustomFields(db: Executor): Promise<void> {
  while (await purgeDeletedCustomFields(db)) {
    // Each batch commits on its own.
  }
}
