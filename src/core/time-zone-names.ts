// IANA time-zone names (docs/api-contract.md §14 and §21): checked against the runtime's time-zone database
// (Intl), refusing what does not follow local time, and answered in the IANA primary spelling. A small
// helper on purpose: the account's time zone (§14) may replace it with a fuller one.

/**
 * ICU (the runtime's database) still answers some zones by a spelling that IANA has since renamed; each is
 * answered by its current IANA name. Zones that IANA merged into another country's (Europe/Bratislava)
 * keep their own name: they are not misspellings, and a business in Bratislava expects to read Bratislava.
 */
const RENAMED: Record<string, string> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** The names of UTC itself that are accepted (answered `UTC`). */
const UTC_NAMES = new Set(['utc', 'etc/utc']);

/**
 * The canonical IANA name of `name`, or undefined when it is not a time zone that follows local time:
 * unknown to the runtime, an offset (`+02:00`), an abbreviation or legacy fixed-offset name (`MST`, `EST`,
 * `CET`, `EST5EDT`), or an `Etc/` zone (`Etc/GMT+7`). `UTC` and `Etc/UTC` are valid and answered `UTC`.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (UTC_NAMES.has(name.toLowerCase())) return 'UTC';
  // Every zone that follows local time is Area/Location; names without a slash are abbreviations or
  // legacy rules, and Etc/ holds the fixed offsets.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+$/.test(name) || /^etc\//i.test(name)) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  if (resolved === 'UTC' || resolved.startsWith('Etc/')) return undefined;
  return RENAMED[resolved] ?? resolved;
}
