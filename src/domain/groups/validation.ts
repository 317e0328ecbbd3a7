// Group name and path rules, in the reference's words.

const PATH_RE = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/;
export const PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

const NAME_RE = /^[\p{L}\p{N}\p{Extended_Pictographic}_][\p{L}\p{N}\p{Extended_Pictographic}\p{Pd}_(). ]*$/u;
export const NAME_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

/** Top-level paths that routes of the web interface or the API own. */
const RESERVED_TOP_LEVEL = new Set([
  '-', '.well-known', 'admin', 'api', 'assets', 'autocomplete', 'dashboard', 'explore', 'favicon.ico', 'favicon.png',
  'files', 'groups', 'health_check', 'help', 'import', 'jwt', 'login', 'oauth', 'profile', 'projects', 'public',
  'robots.txt', 's', 'search', 'sitemap', 'sitemap.xml', 'snippets', 'uploads', 'users', 'v2',
]);
/** Paths reserved below a group (its own routes). */
const RESERVED_WILDCARD = new Set(['-', 'badges', 'blame', 'blob', 'builds', 'commits', 'create', 'create_dir', 'edit', 'files', 'find_file', 'info', 'objects', 'preview', 'raw', 'refs', 'tree', 'update', 'wikis']);

export function pathErrors(path: string, topLevel: boolean): string[] {
  const errors: string[] = [];
  if (path.length === 0) errors.push("can't be blank");
  if (path.length > 255) errors.push('is too long (maximum is 255 characters)');
  if (path.length > 0 && (!PATH_RE.test(path) || /\.(git|atom)$/i.test(path))) errors.push(PATH_MESSAGE);
  const lower = path.toLowerCase();
  if (topLevel ? RESERVED_TOP_LEVEL.has(lower) : RESERVED_WILDCARD.has(lower)) errors.push(`${path} is a reserved name`);
  return errors;
}

export function nameErrors(name: string): string[] {
  const errors: string[] = [];
  if (name.trim().length === 0) errors.push("can't be blank");
  else if (!NAME_RE.test(name)) errors.push(NAME_MESSAGE);
  if (name.length > 255) errors.push('is too long (maximum is 255 characters)');
  return errors;
}

/** Ruby's Hash#inspect of model errors, as the reference embeds them in "Failed to save group …". */
export function rubyErrorsInspect(errors: Record<string, string[]>): string {
  return `{${Object.entries(errors)
    .map(([k, msgs]) => `:${k}=>[${msgs.map((m) => JSON.stringify(m)).join(', ')}]`)
    .join(', ')}}`;
}
