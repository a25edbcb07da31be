// A mistake in how the `bms` command was called: printed with the usage text, exit code 2.
export class UsageError extends Error {}
