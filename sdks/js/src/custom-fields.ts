// Typed reads of an object's custom field values (the API's `custom_fields`: every key your account defines for
// the kind, null when unset). The API's document cannot know your keys, so `custom_fields` is an open object in
// the generated types; these accessors check a value's type as they read it, and `WithCustomFields` lets you state
// your own fields' types once and have them checked by TypeScript from then on.

/** What a custom field holds: text, date and select as a string, number and money as a number, and so on. */
export type CustomFieldValue = string | number | boolean | string[] | null;

/** An object of a kind with custom fields (a client, an invoice, …). */
export interface HasCustomFields {
  custom_fields: Record<string, unknown>;
}

/**
 * An object whose custom fields are typed as you state them:
 * `type MyClient = WithCustomFields<Client, { tier: 'gold' | 'silver' | null; visits: number | null }>`.
 */
export type WithCustomFields<T extends HasCustomFields, Fields extends Record<string, CustomFieldValue>> = Omit<
  T,
  'custom_fields'
> & { custom_fields: Fields };

function read<T>(object: HasCustomFields, key: string, is: (value: unknown) => boolean, expected: string): T | null {
  const values = object.custom_fields ?? {};
  if (!Object.prototype.hasOwnProperty.call(values, key)) {
    const defined = Object.keys(values);
    throw new TypeError(
      `'${key}' is not a custom field of this object (${defined.length > 0 ? `defined: ${defined.join(', ')}` : 'none is defined'})`,
    );
  }
  const value = values[key];
  if (value === null || value === undefined) return null;
  if (!is(value)) throw new TypeError(`custom field '${key}' holds ${JSON.stringify(value)}, not ${expected}`);
  return value as T;
}

const isString = (value: unknown) => typeof value === 'string';

/**
 * One accessor per type: each answers the value (null when unset) and throws a TypeError for a key the object
 * does not have or a value of another type.
 */
export const customFields = {
  text: (object: HasCustomFields, key: string) => read<string>(object, key, isString, 'a text'),
  number: (object: HasCustomFields, key: string) =>
    read<number>(object, key, (value) => typeof value === 'number', 'a number'),
  /** Integer minor units of the object's currency (its document's, else the account's). */
  money: (object: HasCustomFields, key: string) =>
    read<number>(object, key, (value) => Number.isSafeInteger(value), 'an amount in minor units'),
  /** `YYYY-MM-DD`. */
  date: (object: HasCustomFields, key: string) =>
    read<string>(object, key, (value) => isString(value) && /^\d{4}-\d{2}-\d{2}$/.test(value as string), 'a date'),
  boolean: (object: HasCustomFields, key: string) =>
    read<boolean>(object, key, (value) => typeof value === 'boolean', 'true or false'),
  /** The option's value. */
  select: (object: HasCustomFields, key: string) => read<string>(object, key, isString, 'an option value'),
  /** The options' values. */
  multiSelect: (object: HasCustomFields, key: string) =>
    read<string[]>(object, key, (value) => Array.isArray(value) && value.every(isString), 'a list of option values'),
};
