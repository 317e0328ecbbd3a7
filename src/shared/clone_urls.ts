// How a project's repository is cloned over SSH: the reference's scp-like `git@host:path.git` on
// port 22, and an ssh:// URL that names the port on any other (scp-like syntax has no port).
import type { Config } from '../config.js';

export function sshCloneUrl(config: Pick<Config, 'sshExternalHost' | 'sshExternalPort'>, fullPath: string): string {
  const host = config.sshExternalHost;
  if (config.sshExternalPort === 22) return `git@${host.includes(':') ? `[${host}]` : host}:${fullPath}.git`;
  return `ssh://git@${host.includes(':') ? `[${host}]` : host}:${config.sshExternalPort}/${fullPath}.git`;
}
