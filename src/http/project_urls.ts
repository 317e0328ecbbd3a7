// Public URLs under a project's or user's path that are not git: a user's SSH keys
// (`/{username}.keys`), the badge images
// (`/{project}/badges/{ref}/pipeline.svg`, `…/coverage.svg`) and the alert notify URL
// (`/{project}/-/alerts/notify/{name}/{endpoint_identifier}.json`). A project path has any
// number of segments, so, as for git, these are mapped onto fixed internal routes before routing.
// Any extension is taken here so that a badge in another format (`pipeline.png`) is the API's 404,
// not a web page: only `.svg` maps onto a route.
const BADGE_IMAGE = /^\/(.+\/badges\/.+)\/(pipeline|coverage)\.(\w+)$/;
const ALERT_NOTIFY = /^\/(.+)\/-\/alerts\/notify\/([^/]+)\/([^/]+)\.json$/;

/** `/<username>.keys`: a user's public SSH keys as text (one segment: a project's path never is). */
const USER_KEYS = /^\/([A-Za-z0-9_.][A-Za-z0-9_.-]*)\.keys$/;

export const BADGE_IMAGE_PREFIX = '/-/badge-images';
export const USER_KEYS_PREFIX = '/-/user-keys';
export const ALERT_NOTIFY_PREFIX = '/-/alert-notify';

function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export function rewriteProjectUrl(url: string): string {
  const q = url.indexOf('?');
  const pathPart = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q);
  if (pathPart.startsWith('/api/') || pathPart.startsWith('/-/')) return url;
  const badge = BADGE_IMAGE.exec(pathPart);
  if (badge) {
    const path = decoded(badge[1]);
    const kind = badge[3] === 'svg' ? badge[2] : `${badge[2]}.${badge[3]}`;
    return path === null ? url : `${BADGE_IMAGE_PREFIX}/${kind}/${encodeURIComponent(path)}${query}`;
  }
  const keys = USER_KEYS.exec(pathPart);
  if (keys) return `${USER_KEYS_PREFIX}/${keys[1]}${query}`;
  const alert = ALERT_NOTIFY.exec(pathPart);
  if (alert) {
    const parts = [alert[1], alert[2], alert[3]].map(decoded);
    if (parts.some((p) => p === null)) return url;
    return `${ALERT_NOTIFY_PREFIX}/${parts.map((p) => encodeURIComponent(p!)).join('/')}${query}`;
  }
  return url;
}
