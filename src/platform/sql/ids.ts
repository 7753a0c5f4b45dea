const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id is a UUID (ids) rather than a slug; any case. */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
