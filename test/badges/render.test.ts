// Badge URL rendering and validation (src/domain/badges/render.ts). Pure: runs once, not per dialect.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { escapeUrl, renderUrl, urlError, type PlaceholderValues } from '../../src/domain/badges/render.js';

const VALUES: PlaceholderValues = {
  project_path: 'grp/sub/proj',
  project_title: 'My Project',
  project_name: 'proj',
  project_id: '7',
  project_namespace: 'grp/sub/proj',
  group_name: 'grp/sub',
  service_server: 'anvil.test',
  default_branch: 'main',
  commit_sha: null,
  latest_tag: 'v1.0',
};

describe('badge URLs', () => {
  it('escape each part as Addressable::URI.escape does', () => {
    assert.equal(escapeUrl('https://x.example/a b/c?q=a b&r=ü#frag ment'), 'https://x.example/a%20b/c?q=a%20b&r=%C3%BC#frag%20ment');
    assert.equal(escapeUrl('https://x.example/p?x=%41'), 'https://x.example/p?x=%2541', '% itself is escaped');
    assert.equal(escapeUrl("https://u:p@x.example:8080/a/b;c=d/$!*'(),+@:?k=/?v"), "https://u:p@x.example:8080/a/b;c=d/$!*'(),+@:?k=/?v");
    assert.equal(escapeUrl('https://x.example/{a}|[b]'), 'https://x.example/%7Ba%7D%7C%5Bb%5D');
  });

  it('resolve known placeholders (plain or escaped); leave unknown and empty ones as written', () => {
    assert.equal(renderUrl('https://x/%{project_path}/%{project_title}/%{group_name}/%{latest_tag}', VALUES), 'https://x/grp/sub/proj/My%20Project/grp/sub/v1.0');
    assert.equal(renderUrl('https://x/%25%7Bproject_id%7D', VALUES), 'https://x/7');
    assert.equal(renderUrl('https://x/%{commit_sha}/%{nope}', VALUES), 'https://x/%25%7Bcommit_sha%7D/%25%7Bnope%7D');
    assert.equal(renderUrl('https://x/%{project_id}', null), 'https://x/%25%7Bproject_id%7D', 'no project: nothing resolved');
  });

  it('accept only http(s) URLs with a host, in the reference words', () => {
    assert.equal(urlError('https://x.example/a'), null);
    assert.equal(urlError(' HTTP://x.example '), null);
    assert.equal(urlError(''), 'must be a valid URL');
    assert.equal(urlError('   '), 'must be a valid URL');
    assert.equal(urlError('ftp://x.example'), 'is blocked: Only allowed schemes are http, https');
    assert.equal(urlError('x.example/a'), 'is blocked: Only allowed schemes are http, https');
    assert.equal(urlError('https:///path'), 'is blocked: URI is invalid');
    assert.equal(urlError('https://x.example/\nfoo'), 'is blocked: URI is invalid');
  });
});
