#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 node --max-semi-space-size=8 --heap-growing-percent=20
// The line above is the server's memory settings, given at exec (V8 sizes its heap and glibc its
// arenas before any of our code runs, and V8 keys its code cache by its flags, so a flag set later
// would also throw that cache away):
// - semi-spaces of 8 MB instead of 16: after load a third of the heap V8 kept was new space;
// - an old generation that grows by 20 % over what is live instead of up to 4×: after the bench's
//   hook burst the heap held 93 MB for some 30 MB live, and 58 MB with this (RSS 206 → 151 MB);
// - two malloc arenas instead of one per thread-pool thread, each of which kept freed memory;
// - blocks of 64 KB and more (stream chunks, large responses) mapped on their own and given back
//   when freed, instead of glibc's threshold that rises to 32 MB after the first such free: in
//   the heap they left holes that a process never returns (RSS after the whole bench 159 → 149 MB;
//   a page of 100 projects, 250 KB of JSON, costs about 5 % more CPU for its mapping).
// So the command is run as itself (`dist/anvil.cjs serve`, as `npm start`, the bench and the
// tests do), not as `node dist/anvil.cjs`.
// dist/anvil.cjs: runs the server bundle (dist/server.cjs) through V8's code cache. Parsing and
// compiling the bundle was most of start-up, which integration suites pay at every run; Node 20 has
// no compile cache of its own, so the bytecode start-up compiled is kept beside the bundle and
// given back to V8 at the next start. The cache is named after the bundle's size and time, so a
// rebuilt bundle never runs a stale one; V8 refuses one from another Node version, and then it is
// written anew. Without a cache (or a writable dist/) the bundle simply compiles as usual.
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** How long after start the cache is written: by then start-up has compiled what a start runs. */
const WRITE_CACHE_AFTER_MS = 2000;

const bundle = fileURLToPath(new URL('./server.cjs', import.meta.url));
const stat = fs.statSync(bundle);
const cacheFile = `${bundle}.${stat.size}-${Math.round(stat.mtimeMs)}.cache`;

/** The cache for this very bundle, if a start has written it. */
function readCache(): Buffer | undefined {
  try {
    return fs.readFileSync(cacheFile);
  } catch {
    return undefined; // the first start after a build
  }
}

// latin1: the bundle is ASCII only (scripts/bundle.mjs), and a one-byte string is made without
// decoding UTF-8 (a third of the time to read it).
const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, 'latin1')), {
  filename: bundle,
  cachedData: readCache(), // not kept in a variable: megabytes the process need not hold
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const server = { exports: {}, filename: bundle, id: bundle, loaded: false };
script.runInThisContext().call(server.exports, server.exports, createRequire(bundle), server, bundle, path.dirname(bundle));

// Not given a cache (undefined), or given one V8 refused (true): write this start's.
if (script.cachedDataRejected !== false) {
  setTimeout(() => {
    try {
      const tmp = `${cacheFile}.${process.pid}`;
      fs.writeFileSync(tmp, script.createCachedData());
      fs.renameSync(tmp, cacheFile); // whole or not at all: several servers may start at once
    } catch {
      // a read-only install starts without the cache
    }
  }, WRITE_CACHE_AFTER_MS).unref();
}
