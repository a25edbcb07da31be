// The one error class and the one code -> HTTP status table. Services throw AppError; the error
// handler turns it into the contract's envelope.

export const ERROR_STATUS = {
  VALIDATION_ERROR: 422,
  INVALID_JSON: 400,
  BAD_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  AUTHENTICATION_REQUIRED: 401,
  INVALID_API_KEY: 401,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** An attachment's download asked for a range past its end (docs/api-contract.md §30). */
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

/**
 * A check of the current object that a service runs before changing it, inside the change's transaction
 * (the HTTP layer builds it from If-Match); throws PRECONDITION_FAILED when it does not hold.
 */
export type Precondition = (current: unknown) => void;

/** Words a detail's message may start with to read on from its field's path: "name must not be empty". */
const READS_ON =
  /^(is|are|was|must|may|can|cannot|could|has|have|had|does|do|belongs|holds|names|refers|would|should|needs|already|key)\b/;

/**
 * A detail whose message is a sentence that names its field ("name must not be empty"), so it
 * reads on its own wherever it is shown; a message that already names it is kept.
 */
export function withFieldPath(detail: ErrorDetail): ErrorDetail {
  const { field, message } = detail;
  if (message.startsWith(`${field} `) || message.startsWith(`${field}:`)) return detail;
  return { ...detail, message: READS_ON.test(message) ? `${field} ${message}` : `${field}: ${message}` };
}

/** 422 naming every offending field; the message lists them. */
export function validationError(details: ErrorDetail[], message?: string): AppError {
  const named = details.map(withFieldPath);
  const fields = [...new Set(named.map((detail) => detail.field))];
  const listed =
    fields.length > 10 ? `${fields.slice(0, 10).join(', ')} and ${fields.length - 10} more` : fields.join(', ');
  const summary =
    message ??
    (fields.length === 0
      ? 'The request has invalid fields.'
      : `The request has ${fields.length === 1 ? 'an invalid field' : `${fields.length} invalid fields`}: ${listed}.`);
  return new AppError('VALIDATION_ERROR', summary, named);
}

/**
 * The 422 details `checks` throw, each check run whatever the others' fate, so one answer names every wrong
 * field; any other error is thrown.
 */
export function fieldProblems(...checks: Array<() => unknown>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'VALIDATION_ERROR') throw error;
      problems.push(...(error.details ?? []));
    }
  }
  return problems;
}

export function fieldError(field: string, message: string): AppError {
  return validationError([{ field, message }]);
}

export function notFound(kind: string, id: string): AppError {
  return new AppError('NOT_FOUND', `No ${kind} with id '${id}' exists.`);
}

export function invalidState(message: string): AppError {
  return new AppError('INVALID_STATE', message);
}

export function conflict(message: string): AppError {
  return new AppError('CONFLICT', message);
}
