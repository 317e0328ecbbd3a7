// The server's syntax highlighting: one HTML fragment per line, escaped, tokens closed at each
// line's end (a diff shows lines apart), unknown languages plain.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { highlightLines, languageOf } from '../../src/web/views/highlight.js';

const text = (h: { toString(): string }) => h.toString().replace(/<[^>]+>/g, '');
const balanced = (s: string) => (s.match(/<span/g) ?? []).length === (s.match(/<\/span>/g) ?? []).length;

describe('highlightLines', () => {
  it('colours a TypeScript file line by line, a comment across lines closed and reopened', async () => {
    const lines = (await highlightLines('src/a.ts', 'const a = 1;\n/* one\ntwo <b> */\n')).map(String);
    assert.equal(lines.length, 3);
    assert.match(lines[0], /<span class="k">const<\/span>/);
    assert.equal(lines[1], '<span class="c">/* one</span>');
    assert.equal(lines[2], '<span class="c">two &lt;b&gt; */</span>');
    for (const l of lines) assert.ok(balanced(l), l);
  });

  it('keeps only the spans of coloured tokens, in short classes', async () => {
    const [line] = (await highlightLines('a.ts', 'export function f(input: number) { return `a${input}`; }\n')).map(String);
    assert.equal(line, '<span class="k">export</span> <span class="k">function</span> <span class="t">f</span>(<span class="a">input</span>: <span class="b">number</span>) { <span class="k">return</span> <span class="s">`a<span class="u">${input}</span>`</span>; }');
  });

  it('keeps every line, text and all, and escapes what it does not know', async () => {
    const src = 'a <b> & "c"\n\nlast';
    const plain = await highlightLines('notes.unknownext', src);
    assert.deepEqual(plain.map(String), ['a &lt;b&gt; &amp; &quot;c&quot;', '', 'last']);
    const py = await highlightLines('x.py', 'def f(x):\n    """doc\n    more"""\n    return x < 2\n');
    assert.deepEqual(py.map(text), ['def f(x):', '    &quot;&quot;&quot;doc', '    more&quot;&quot;&quot;', '    return x &lt; 2']);
  });

  it('knows languages by extension and by name', () => {
    assert.equal(languageOf('a/b/main.go'), 'go');
    assert.equal(languageOf('Dockerfile'), 'dockerfile');
    assert.equal(languageOf('x/Makefile'), 'makefile');
    assert.equal(languageOf('.service-ci.yml'), 'yaml');
    assert.equal(languageOf('LICENSE'), null);
  });
});
