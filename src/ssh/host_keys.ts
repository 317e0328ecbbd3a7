// The SSH server's host keys: the files ANVIL_SSH_HOST_KEYS names, else an ed25519 and an RSA key
// generated into <dataDir>/ssh on first start. Every node that shares the data dir reads the same
// files, so clients see one host whichever node answers (the first writer wins a race).
import fs from 'node:fs';
import path from 'node:path';
import ssh2 from 'ssh2';
import type { SshConfig } from '../config.js';

const GENERATED = [
  { file: 'ssh_host_ed25519_key', generate: () => ssh2.utils.generateKeyPairSync('ed25519', { comment: 'anvil' }) },
  { file: 'ssh_host_rsa_key', generate: () => ssh2.utils.generateKeyPairSync('rsa', { bits: 3072, comment: 'anvil' }) },
];

export function hostKeys(ssh: SshConfig, dataDir: string): Buffer[] {
  if (ssh.hostKeyFiles.length) return ssh.hostKeyFiles.map((f) => fs.readFileSync(f));
  const dir = path.join(dataDir, 'ssh');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return GENERATED.map(({ file, generate }) => {
    const at = path.join(dir, file);
    if (!fs.existsSync(at)) {
      const pair = generate();
      try {
        fs.writeFileSync(at, pair.private, { mode: 0o600, flag: 'wx' });
        fs.writeFileSync(`${at}.pub`, `${pair.public}\n`, { mode: 0o644 }); // for admins to publish; the server reads the private key
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another node wrote it first
      }
    }
    return fs.readFileSync(at);
  });
}
