/** The error codes docs/api.md documents ("Errors"): what every error body of the API may carry. */
export const DOCUMENTED_ERROR_CODES = [
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'STALE_STEP_TOKEN',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
] as const;
