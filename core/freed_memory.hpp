// Gives the memory freed so far back to the system, when a stream has ended.
//
// glibc keeps freed pages in the arena of the thread that freed them, for reuse, and makes
// up to 8 arenas a core: a process that runs streams one after another (`run --jobs 4` on 200
// files, serve's restarts and replacements) spreads them over many arenas, each keeping what
// its ended streams used. On the 16-core H200, 200 small files 4 at a time peaked at 242 MB
// where 4 at once took 135 (200 at once: 353): the cap held the streams, not their memory.
// malloc_trim(0) returns every arena's free pages (a few ms); elsewhere than glibc, nothing.
#pragma once

namespace fp {

void give_freed_memory_back();

}  // namespace fp
