// Badge URLs: validation and placeholder rendering, as the reference's Badge model and its API
// entity do them. Pure: the caller supplies the project's values.

/** The placeholders a badge URL may hold; a value that is null leaves the placeholder as written. */
export interface PlaceholderValues {
  project_path: string;
  project_title: string;
  project_name: string;
  project_id: string;
  project_namespace: string;
  group_name: string | null;
  service_server: string;
  default_branch: string | null;
  commit_sha: string | null;
  latest_tag: string | null;
}

export const PLACEHOLDER_NAMES: (keyof PlaceholderValues)[] = [
  'project_path',
  'project_title',
  'project_name',
  'project_id',
  'project_namespace',
  'group_name',
  'service_server',
  'default_branch',
  'commit_sha',
  'latest_tag',
];

// `%{name}`, or its URL-escaped form `%25%7Bname%7D` (the reference's StringPlaceholderReplacer).
const PLACEHOLDER = new RegExp(`%(?:\\{|25%7B)(${PLACEHOLDER_NAMES.join('|')})(?:\\}|%7D)`, 'g');

function substitute(url: string, values: PlaceholderValues | null): string {
  if (!values) return url;
  return url.replace(PLACEHOLDER, (whole, name: keyof PlaceholderValues) => values[name] ?? whole);
}

// Characters each URL part keeps as they are (Addressable's character classes); the rest,
// `%` included, is percent-encoded as UTF-8.
const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const PCHAR = `${UNRESERVED}${SUB_DELIMS.replace(/[\]\\^-]/g, '\\$&')}:@`;
const KEEP = {
  scheme: /[A-Za-z0-9+\-.]/,
  authority: new RegExp(`[${PCHAR}\\[\\]]`),
  path: new RegExp(`[${PCHAR}/]`),
  query: new RegExp(`[${PCHAR}/?]`),
};

function encodePart(s: string, keep: RegExp): string {
  let out = '';
  for (const ch of s) {
    if (keep.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// RFC 3986, appendix B.
const URI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

/** Addressable::URI.escape: each part of the URL encoded with its own character class. */
export function escapeUrl(url: string): string {
  const m = URI_PARTS.exec(url);
  if (!m) return url;
  const [, scheme, authority, path, query, fragment] = m;
  return (
    (scheme !== undefined ? `${encodePart(scheme, KEEP.scheme)}:` : '') +
    (authority !== undefined ? `//${encodePart(authority, KEEP.authority)}` : '') +
    encodePart(path, KEEP.path) +
    (query !== undefined ? `?${encodePart(query, KEEP.query)}` : '') +
    (fragment !== undefined ? `#${encodePart(fragment, KEEP.query)}` : '')
  );
}

/** rendered_link_url / rendered_image_url: placeholders resolved (when there is a project), then escaped. */
export const renderUrl = (url: string, values: PlaceholderValues | null): string => escapeUrl(substitute(url, values));

const SCHEME = /^([A-Za-z][A-Za-z0-9+\-.]*):/;

/**
 * The reference's URL validation of a badge link or image (addressable_url): blank is not a URL;
 * anything but http(s), or a URL without a host, is blocked.
 */
export function urlError(url: string): string | null {
  const v = url.trim();
  if (v === '') return 'must be a valid URL';
  if (/[\r\n]/.test(v)) return 'is blocked: URI is invalid';
  const scheme = SCHEME.exec(v)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return 'is blocked: Only allowed schemes are http, https';
  const m = URI_PARTS.exec(v);
  if (!m || !m[2] || /\s/.test(m[2])) return 'is blocked: URI is invalid';
  return null;
}
