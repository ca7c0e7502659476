const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids that are not UUIDs name nothing: routes answer 404 for them, as for unknown ones. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
