// The face of the tags module: the one writer the six tagged kinds call for their `tags`, their list filters, and
// the seam of their add and remove endpoints. The rest is private.
import type { Context } from '../../kernel/context.js';
import { AddTagsBody, type TaggedKind } from './tags.schemas.js';
import { changeObjectTags, type TagChange } from './tags.service.js';

export {
  AddTagsBody,
  type TaggedKind,
  TAGGED_KINDS,
  TagSchema,
  TagsInputSchema,
  TagsSchema,
  tagFilterProperties,
} from './tags.schemas.js';
export { tagNamesColumn } from './tags.repository.js';
export { deleteObjectTags, storedTags, tagConditions, tagShapes, writeTags } from './tags.service.js';

/** What a tagged kind's routes take (http/resource-routes.ts `tags`). */
export function tagSeam(kind: TaggedKind) {
  return {
    body: AddTagsBody,
    change: <Item extends { id: string }>(
      ctx: Context,
      id: string,
      change: TagChange,
      get: (tx: Context, id: string) => Promise<Item>,
    ) => changeObjectTags(ctx, kind, id, change, get),
  };
}
